import { afterEach, describe, expect, it } from '@jest/globals';
import type { Socket } from 'socket.io-client';
import { gateScene } from '../factories/checkin.js';
import { CARD_LAYOUT, putLayout, TICKET_LAYOUT } from '../factories/layouts.js';
import { connect, waitFor } from '../factories/sockets.js';
import { useTestApp } from '../setup/test-app.js';

/** `layout.changed` on /driver (docs/checkin.md#layouts-that-change): an open phone redraws a layout saved again. */
describe('layout.changed on /driver', () => {
  const t = useTestApp();
  const sockets: Socket[] = [];
  afterEach(() => sockets.splice(0).forEach((socket) => socket.close()));

  const url = () => `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
  const phone = async (token: string) => {
    const socket = await connect(url(), '/driver', { token });
    sockets.push(socket);
    const heard: unknown[] = [];
    socket.on('layout.changed', (change: unknown) => heard.push(change));
    return heard;
  };

  it('tells the drivers whose live records or tickets use the layout, and no one else', async () => {
    const scene = await gateScene(t.http);
    const bystander = await gateScene(t.http);
    const mine = await phone(scene.token);
    const theirs = await phone(bystander.token);
    const renamed = { ...CARD_LAYOUT, name: 'Edited in the panel' };

    await putLayout(t.http, scene.terminal.key, 'appointment', 'appt', renamed);
    await waitFor(() => mine.length === 1);
    expect(mine).toEqual([{ set: 'appointment', layout_ref: 'appt' }]);

    // A layout none of the driver's records uses, and a new one, tell nobody.
    await putLayout(t.http, scene.terminal.key, 'ticket', 'gate-pass', TICKET_LAYOUT);
    await putLayout(t.http, scene.terminal.key, 'appointment', 'brand-new');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mine).toHaveLength(1);
    // Once the driver has a ticket of that layout, its change is theirs.
    const { ref } = await scene.appointment();
    const ticket = await t.http
      .post('/api/v1/tickets')
      .set('X-API-Key', scene.terminal.key)
      .send({ appointment_ref: ref, layout_ref: 'gate-pass', content: { gate: 'A1' } });
    expect(ticket.status).toBe(201);
    await putLayout(t.http, scene.terminal.key, 'ticket', 'gate-pass', TICKET_LAYOUT);
    await waitFor(() => mine.length === 2);
    expect(mine[1]).toEqual({ set: 'ticket', layout_ref: 'gate-pass' });
    expect(theirs).toEqual([]);
  });
});
