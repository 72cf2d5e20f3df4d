import { beforeAll, describe, expect, it } from '@jest/globals';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { CARD_LAYOUT, putLayout } from '../factories/layouts.js';
import { createItem, createRecords } from '../factories/records.js';
import { useTestApp } from '../setup/test-app.js';

/** Bad input gets a clear error and changes nothing: no body a client can send may produce a 500. */
const NASTY_VALUES: unknown[] = [
  null,
  0,
  -1,
  1.5,
  '',
  ' ',
  'x'.repeat(5000),
  '\u0000',
  '\ud800',
  '😀',
  true,
  [],
  [null],
  {},
  { a: { b: { c: { d: [1, { e: null }] } } } },
  '2026-02-30T00:00:00Z',
  '2026-11-22T08:00:00',
  '9999-12-31T23:59:59Z',
  '1e309',
  'DROP TABLE trips;',
  '<script>',
  ['a', 1],
];

class RawJson {
  constructor(readonly text: string) {}
}

/** `{"nested": {"nested": … "bottom" …}}`, written as text: JSON.stringify cannot go this deep. */
const deepText = (levels: number) => new RawJson(`${'{"nested":'.repeat(levels)}"bottom"${'}'.repeat(levels)}`);
const deep = (levels: number): unknown => JSON.parse(deepText(levels).text);

describe('robustness: no client input yields a 500', () => {
  const t = useTestApp();
  let carrier: TestAccount;
  let terminal: TestAccount;
  let tripRef: string;
  let appointmentRef: string;

  beforeAll(async () => {
    [carrier, terminal] = await Promise.all([newAccount(t.http, 'carrier'), newAccount(t.http, 'terminal')]);
    await putLayout(t.http, carrier.key, 'trip', 'l');
    await putLayout(t.http, terminal.key, 'appointment', 'l');
    await putLayout(t.http, terminal.key, 'ticket', 't');
    [tripRef] = await createRecords(t.http, carrier.key, 'trip', [createItem('trip', 'l')]);
    [appointmentRef] = await createRecords(t.http, terminal.key, 'appointment', [createItem('appointment', 'l')]);
  });

  /** `body` is sent as JSON, or as is when it is a RawJson (text too deep for JSON.stringify). */
  async function expectNo500(method: 'post' | 'put' | 'delete' | 'patch', path: string, key: string, body: unknown): Promise<void> {
    const text = body instanceof RawJson ? body.text : JSON.stringify(body);
    const res = await t.http[method](path).set('X-API-Key', key).set('Content-Type', 'application/json').send(text);
    if (res.status >= 500)
      throw new Error(`${method.toUpperCase()} ${path} ${text.slice(0, 200)} → ${res.status} ${JSON.stringify(res.body)}`);
    expect(res.body.success).toBe(res.status < 400);
  }

  it('survives nasty values in every field of every write body', async () => {
    const trip = createItem('trip', 'l').trip;
    const appointment = createItem('appointment', 'l').appointment;
    const cases: [string, 'post' | 'put' | 'delete', string, (value: unknown) => unknown][] = [
      ...Object.keys(trip).map((field): [string, 'post', string, (v: unknown) => unknown] => [
        carrier.key,
        'post',
        '/api/v1/trips',
        (v) => ({ driver: createItem('trip', 'l').driver, trip: { ...trip, ref: `R${Math.random()}`, [field]: v } }),
      ]),
      ...['tax_id', 'driver_license_number', 'license_category'].map((field): [string, 'post', string, (v: unknown) => unknown] => [
        terminal.key,
        'post',
        '/api/v1/appointments',
        (v) => ({
          driver: { ...createItem('appointment', 'l').driver, [field]: v },
          appointment: { ...appointment, ref: `A${Math.random()}` },
        }),
      ]),
      ...Object.keys(appointment).map((field): [string, 'put', string, (v: unknown) => unknown] => [
        terminal.key,
        'put',
        '/api/v1/appointments',
        (v) => ({ ref: appointmentRef, appointment: { [field]: v } }),
      ]),
      [carrier.key, 'put', '/api/v1/trips', (v) => ({ ref: tripRef, trip: { status: v } })],
      [carrier.key, 'put', '/api/v1/trips', (v) => ({ ref: v, trip: { summary: 'x' } })],
      [carrier.key, 'delete', '/api/v1/trips', (v) => v],
      [carrier.key, 'delete', '/api/v1/trips', (v) => [v]],
      [terminal.key, 'post', '/api/v1/tickets', (v) => ({ appointment_ref: appointmentRef, layout_ref: 't', content: v })],
      [terminal.key, 'post', '/api/v1/tickets', (v) => ({ appointment_ref: v, layout_ref: 't', content: {} })],
      [terminal.key, 'put', '/api/v1/tickets', (v) => ({ ticket_id: v, content: {} })],
      [terminal.key, 'delete', '/api/v1/tickets', (v) => v],
      [terminal.key, 'put', '/api/v1/layouts/ticket/fuzz', (v) => ({ elements: [{ type: 'field', label: v, path: v }] })],
      [terminal.key, 'put', '/api/v1/layouts/appointment/fuzz', (v) => ({ ...CARD_LAYOUT, name: v, modal_layout: v })],
      [terminal.key, 'post', '/api/v1/layouts/appointment/l/preview', (v) => ({ data: v })],
    ];
    for (const [key, method, path, build] of cases) {
      for (const value of [...NASTY_VALUES, deep(200)]) await expectNo500(method, path, key, build(value));
    }
  });

  it('survives nasty whole bodies, paths and queries', async () => {
    for (const body of [...NASTY_VALUES, deepText(5000), deepText(100_000), Array.from({ length: 50 }, () => null)]) {
      await expectNo500('post', '/api/v1/trips', carrier.key, body);
      await expectNo500('put', '/api/v1/appointments', terminal.key, body);
      await expectNo500('post', '/api/v1/admin/accounts', 'test-admin-key-0123456789abcdef', body);
      await expectNo500('patch', '/api/v1/admin/accounts/00000000-0000-4000-8000-000000000000', 'test-admin-key-0123456789abcdef', body);
    }
    for (const path of [
      '/api/v1/trips/logs?refs=%00',
      '/api/v1/trips/logs?refs=%ED%A0%80',
      `/api/v1/trips/logs?refs=${'x'.repeat(5000)}`,
      '/api/v1/layouts/trip/%00',
      '/api/v1/layouts/trip/%E2%82',
      '/api/v1/tickets?appointment_refs[]=x',
      '/api/v1/admin/accounts/%00',
    ]) {
      const key = path.includes('tickets') ? terminal.key : path.includes('admin') ? 'test-admin-key-0123456789abcdef' : carrier.key;
      const res = await t.http.get(path).set('X-API-Key', key);
      expect([res.status, path]).toEqual([expect.any(Number), path]);
      expect(res.status).toBeLessThan(500);
    }
  });
});
