import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gateScene } from '../factories/checkin.js';
import { spawnWithOutput, until } from '../setup/processes.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';

/**
 * The terminal server of docs/checkin.md, run exactly as written there (the `js` block of "A terminal server in a
 * few lines", saved as a file beside the project's node_modules), answering real check-ins.
 */
const doc = readFileSync('docs/checkin.md', 'utf8');
const section = doc.slice(doc.indexOf('### A terminal server in a few lines'));
const snippet = /```js\n([\s\S]*?)```/.exec(section)?.[1];
let gate: TestApp;

beforeAll(async () => {
  gate = await startTestApp();
});
afterAll(async () => {
  await gate?.close();
});

describe('the terminal server example of docs/checkin.md', () => {
  it('accepts a check-in with a ticket, and refuses the plate it names', async () => {
    expect(snippet).toBeDefined();
    const folder = join(process.cwd(), 'test-artifacts', 'doc-examples');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, `terminal-server-${process.pid}.mjs`);
    writeFileSync(file, snippet!);
    const scene = await gateScene(gate.http);
    const refused = await scene.appointment({ license_plate: 'BAD0A00' });
    const { port } = gate.app.getHttpServer().address() as { port: number };
    const server = spawnWithOutput(process.execPath, [file], {
      GATE_URL: `http://127.0.0.1:${port}`,
      GATE_TERMINAL_KEY: scene.terminal.key,
    });
    try {
      await until(() => server.output().includes('connected: waiting for check-ins'), 'the example terminal server to connect');
      const driver = `Bearer ${scene.token}`;
      const mine = (await gate.http.get('/api/v1/driver/appointments').set('Authorization', driver)).body.data as {
        id: string;
        ref: string;
      }[];
      const accepted = mine.find((appointment) => appointment.ref !== refused.ref)!;

      const ok = await gate.http.post(`/api/v1/driver/appointments/${accepted.id}/check-in`).set('Authorization', driver).send({});
      expect([ok.status, ok.body.data.status, ok.body.data.tickets.length]).toEqual([200, 'CHECKED_IN', 1]);
      expect(ok.body.data.tickets[0].content).toEqual({ gate: 'A3', lane: 2, bay: 12 });

      const no = await gate.http.post(`/api/v1/driver/appointments/${refused.id}/check-in`).set('Authorization', driver).send({});
      expect([no.status, no.body.error.code, no.body.error.details.reason]).toEqual([
        409,
        'CHECKIN_REJECTED',
        'This plate is not allowed at the gate',
      ]);
      expect(server.output()).toContain(`${refused.ref}, plate BAD0A00, driver ${scene.taxId}`);
    } finally {
      server.child.kill();
    }
    // The service logged the terminal server coming and going and each outcome, never with the key or token.
    await until(() => gate.logs.some((line) => line.msg === 'terminal server disconnected'), 'the disconnect to be logged');
    const messages = gate.logs.map((line) => line.msg);
    expect(messages).toEqual(
      expect.arrayContaining([
        'terminal server connected',
        'check-in accepted (driver)',
        'check-in not accepted: checkin_rejected (driver)',
      ]),
    );
    const rejected = gate.logs.find((line) => line.msg === 'check-in not accepted: checkin_rejected (driver)');
    // Besides the ids, the truck and the terminal as people name them: the ref, the plate, the terminal's name.
    expect(rejected?.checkin).toMatchObject({
      outcome: 'checkin_rejected',
      reason: 'This plate is not allowed at the gate',
      appointment_ref: refused.ref,
      plate: 'BAD0A00',
      terminal: scene.terminal.id,
      terminal_name: scene.terminal.name,
    });
    const written = JSON.stringify(gate.logs);
    expect(written).not.toContain(scene.terminal.key);
    expect(written).not.toContain(scene.token);
  });
});
