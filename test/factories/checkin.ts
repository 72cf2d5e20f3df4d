import type TestAgent from 'supertest/lib/agent.js';
import { newAccount, type TestAccount } from './accounts.js';
import { putLayout } from './layouts.js';
import { createItem, createRecords, driver as newDriver, uniqueTaxId } from './records.js';

export const TERMINAL_FENCE = { lat: -23.9608, lng: -46.3336, radius_m: 1000 };

const minutes = (n: number) => new Date(Date.now() + n * 60_000).toISOString();

export interface GateScene {
  terminal: TestAccount;
  taxId: string;
  token: string;
  /** Creates an appointment of the scene's driver (window around now unless given) and returns its id and ref. */
  appointment(fields?: Record<string, unknown>): Promise<{ id: string; ref: string }>;
}

/** A terminal with a gate geofence, layouts, and a driver with a token, ready for check-ins. */
export async function gateScene(http: TestAgent, taxId = uniqueTaxId()): Promise<GateScene> {
  const terminal = await newAccount(http, 'terminal', { location: TERMINAL_FENCE });
  await putLayout(http, terminal.key, 'appointment', 'appt');
  await putLayout(http, terminal.key, 'ticket', 'gate-pass');
  const appointment = async (fields: Record<string, unknown> = {}) => {
    const item = createItem('appointment', 'appt', { window_start: minutes(-30), window_end: minutes(30), ...fields }, newDriver(taxId));
    const res = await http.post('/api/v1/appointments').set('X-API-Key', terminal.key).send(item);
    if (res.status !== 201) throw new Error(`appointment failed: ${JSON.stringify(res.body)}`);
    return { id: res.body.data.created_ids[0] as string, ref: res.body.data.created_refs[0] as string };
  };
  await appointment();
  const tokenRes = await http.post(`/api/v1/drivers/${taxId}/tokens`).set('X-API-Key', terminal.key);
  if (tokenRes.status !== 201) throw new Error(`token failed: ${JSON.stringify(tokenRes.body)}`);
  return { terminal, taxId, token: tokenRes.body.data.token, appointment };
}

export { createRecords, minutes };
