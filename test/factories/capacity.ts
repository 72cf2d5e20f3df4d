import type TestAgent from 'supertest/lib/agent.js';
import { createItem, driver } from './records.js';

/** PUT a capacity rule; answers the response (201 or 200 expected by the caller). */
export const putRule = (http: TestAgent, key: string, ref: string, body: object) =>
  http
    .put(`/api/v1/capacity/${encodeURIComponent(ref)}`)
    .set('X-API-Key', key)
    .send(body);

/** PUT a capacity rule that must be saved. */
export async function saveRule(http: TestAgent, key: string, ref: string, body: object): Promise<Record<string, unknown>> {
  const res = await putRule(http, key, ref, body);
  if (res.status !== 201 && res.status !== 200) throw new Error(`rule failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

interface SlotView {
  start: string;
  end: string;
  capacity: number;
  booked: number;
  free: number;
  open: boolean;
  booked_by_you?: number;
  quota?: number | null;
}

/** The terminal's availability of one rule between two instants: its slots. */
export async function slotsOf(http: TestAgent, key: string, rule: string, from: string, to: string): Promise<SlotView[]> {
  const res = await http.get('/api/v1/capacity/availability').query({ from, to, rule_ref: rule }).set('X-API-Key', key);
  if (res.status !== 200) throw new Error(`availability failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data[0].slots;
}

/** An appointment create item of this layout starting at `start` (an hour long). */
export function at(layout: string, start: string, fields: Record<string, unknown> = {}, driverFields = driver()) {
  const end = new Date(Date.parse(start) + 3_600_000).toISOString();
  return createItem('appointment', layout, { window_start: start, window_end: end, ...fields }, driverFields);
}
