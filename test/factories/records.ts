import type TestAgent from 'supertest/lib/agent.js';

export type Noun = 'trip' | 'appointment';

let sequence = 0;
export const uniqueRef = (prefix = 'REF') => `${prefix}-${process.pid}-${++sequence}`;
export const uniqueTaxId = () => String(10_000_000 + ++sequence) + String(process.pid);

export function driver(taxId = uniqueTaxId(), extra: Record<string, unknown> = {}) {
  return { tax_id: taxId, driver_license_number: `LIC-${taxId}`, license_category: 'E', ...extra };
}

/** A create item `{driver, trip|appointment}` with sensible fields. */
export type CreateItemBody = Record<string, Record<string, unknown>>;

export function createItem(
  noun: Noun,
  layoutRef: string,
  fields: Record<string, unknown> = {},
  driverFields?: Record<string, unknown>,
): CreateItemBody {
  return {
    driver: driverFields ?? driver(),
    [noun]: {
      ref: uniqueRef(noun.toUpperCase()),
      layout_ref: layoutRef,
      license_plate: 'ABC1D23',
      summary: 'Container pickup',
      window_start: '2026-11-22T08:00:00-03:00',
      window_end: '2026-11-22T10:00:00-03:00',
      custom_data: { container: { number: 'MSCU1234567' } },
      ...(noun === 'trip' ? { origin_state: 'SP', destiny_state: 'RJ', from_location: 'Santos', to_location: 'Rio' } : {}),
      ...fields,
    },
  };
}

export const path = (noun: Noun) => `/api/v1/${noun}s`;

export async function createRecords(http: TestAgent, key: string, noun: Noun, items: object[]): Promise<string[]> {
  const res = await http.post(path(noun)).set('X-API-Key', key).send(items);
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.created_refs;
}

export async function logsOf(http: TestAgent, key: string, noun: Noun, refs: string[]) {
  const query = refs.map((ref) => `refs=${encodeURIComponent(ref)}`).join('&');
  return http.get(`${path(noun)}/logs?${query}`).set('X-API-Key', key);
}

export const refOf = (item: object, noun: Noun): string => (item as Record<Noun, { ref: string }>)[noun].ref;
