import type pg from 'pg';
import { withoutAuditTrail } from './history.js';
import { type Figures, figures, now, round, round2, timed } from './stats.js';

/** What the service answers, as far as this section reads it. */
interface Answer {
  status: number;
  body: { data?: { slots: unknown[] }[]; error?: { code: string } };
}

/** A call to the service with a key: the answer's status and body. */
export type KeyedCall = (base: string, key: string, method: string, path: string, body?: unknown) => Promise<Answer>;

export interface CapacityFigures {
  create: { batch: number; slots: number; with_rule: Figures; without_rule: Figures; ratio: number };
  availability: { stored: number; slots: number; fill_seconds: number; rule_saved_seconds: number; service: Figures; floor: Figures };
  race: { instances: number; attempts: number; places: number; succeeded: number; slot_full: number; other: number; wall_ms: number };
}

export interface CapacityBenchOptions {
  /** Two instances of the service on one database (the race uses both). */
  bases: [string, string];
  /** A connection to that database: the fill and the floor. */
  client: pg.Client;
  call: KeyedCall;
  /** A terminal account with the appointment layout `bench`, and a carrier account: their ids and keys. */
  newTerminal: (name: string) => Promise<{ id: string; key: string }>;
  newCarrier: (name: string) => Promise<{ id: string; key: string }>;
  /** Create items `{driver, appointment}` of layout `bench` (their windows are set here). */
  items: (prefix: string, count: number) => { driver: object; appointment: Record<string, unknown> }[];
  batch: number;
  rounds: number;
  stored: number;
  say: (line: string) => void;
}

const MINUTE = 60_000;
const SLOTS_PER_BATCH = 250;
const RACE = { attempts: 200, places: 50 };
/** A month of 15-minute slots in Berlin without a daylight-saving change: 31 × 96. */
const MONTH = { from: '2026-06-01T00:00:00+02:00', to: '2026-07-02T00:00:00+02:00', slots: 2976 };

/**
 * Capacity (docs/capacity.md), three figures:
 * - the same `batch`-appointment creates on a terminal with a rule (15-minute slots, room in every one; the batch
 *   spread over 250 slots) and on one without, in turn, `rounds` each after one of each untimed;
 * - the availability of a month of 15-minute slots on a terminal with `stored` appointments (filled in plain SQL
 *   over 2026, a fifth of them deleted, then the rule saved, which counts its slots), against the SELECT of the
 *   counts alone in plain SQL, in turn;
 * - 200 single bookings sent at once, half to each instance, for a slot of 50 places: exactly 50 must succeed.
 */
export async function capacityBench(o: CapacityBenchOptions): Promise<CapacityFigures> {
  const [a, b] = o.bases;
  const put = async (key: string, ref: string, rule: object) => {
    const started = now();
    const res = await o.call(a, key, 'PUT', `/api/v1/capacity/${ref}`, rule);
    if (res.status !== 201 && res.status !== 200) throw new Error(`rule: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    return now() - started;
  };

  // ---- creates with and without a rule ----
  const [ruled, free] = [await o.newTerminal('Capacity terminal (rule)'), await o.newTerminal('Capacity terminal (no rule)')];
  await put(ruled.key, 'gate', { time_zone: 'Europe/Berlin', slot_minutes: 15, capacity: 100 });
  const spread = (prefix: string) =>
    o.items(prefix, o.batch).map((item, i) => {
      const start = Date.parse('2026-09-01T06:00:00Z') + (i % SLOTS_PER_BATCH) * 15 * MINUTE;
      return {
        ...item,
        appointment: {
          ...item.appointment,
          window_start: new Date(start).toISOString(),
          window_end: new Date(start + 30 * MINUTE).toISOString(),
        },
      };
    });
  const create = async (terminal: { key: string }, body: unknown) => {
    const res = await o.call(a, terminal.key, 'POST', '/api/v1/appointments', body);
    if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  };
  const times = { rule: [] as number[], none: [] as number[] };
  for (let round = -1; round < o.rounds; round++) {
    const [withRule, without] = [spread(`cap-r-${round}`), spread(`cap-n-${round}`)];
    const [tookRule, tookNone] = [await timed(() => create(ruled, withRule)), await timed(() => create(free, without))];
    if (round < 0) continue;
    times.rule.push(tookRule);
    times.none.push(tookNone);
  }
  const createFigures = {
    batch: o.batch,
    slots: SLOTS_PER_BATCH,
    with_rule: figures(times.rule),
    without_rule: figures(times.none),
    ratio: 0,
  };
  createFigures.ratio = round2(createFigures.with_rule.p50 / createFigures.without_rule.p50);

  // ---- the race: 200 single bookings at once for 50 places, on two instances ----
  const [racer, carrier] = [await o.newTerminal('Capacity terminal (race)'), await o.newCarrier('Racing carrier')];
  await put(racer.key, 'race', { time_zone: 'UTC', slot_minutes: 60, capacity: RACE.places, bookable_by: [carrier.id] });
  // Tomorrow's 08:00 UTC hour: a slot in the future, whenever the bench runs (a booking in the past is refused).
  const hour = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1, 8));
  const bookings = o.items('race', RACE.attempts).map((item) => ({
    ...item,
    appointment: {
      ...item.appointment,
      window_start: hour.toISOString(),
      window_end: new Date(hour.getTime() + 30 * 60_000).toISOString(),
    },
  }));
  const raceStarted = now();
  const answers = await Promise.all(
    bookings.map((item, i) => o.call(i % 2 ? b : a, carrier.key, 'POST', `/api/v1/terminals/${racer.id}/bookings`, item)),
  );
  const race = {
    instances: 2,
    attempts: RACE.attempts,
    places: RACE.places,
    succeeded: answers.filter((res) => res.status === 201).length,
    slot_full: answers.filter((res) => res.body?.error?.code === 'SLOT_FULL').length,
    other: answers.filter((res) => res.status !== 201 && res.body?.error?.code !== 'SLOT_FULL').length,
    wall_ms: round(now() - raceStarted),
  };
  const otherAnswer = answers.find((res) => res.status !== 201 && res.body?.error?.code !== 'SLOT_FULL');
  if (otherAnswer)
    o.say(`  a booking of the race answered ${otherAnswer.status}: ${JSON.stringify(otherAnswer.body?.error ?? otherAnswer.body)}`);

  // ---- availability with `stored` appointments ----
  const month = await o.newTerminal('Capacity terminal (a million appointments)');
  const fillStarted = now();
  await withoutAuditTrail(o.client, ['appointments'], async () => {
    const step = 200_000;
    for (let from = 0; from < o.stored; from += step) {
      const to = Math.min(from + step, o.stored);
      await o.client.query(
        `WITH d AS (SELECT array_agg(id ORDER BY id) AS ids FROM (SELECT id FROM drivers LIMIT 10000) s)
         INSERT INTO appointments (terminal_id, status, ref, layout_ref, driver_id, window_start, window_end, license_plate, summary)
         SELECT $1, (ARRAY['SCHEDULED','CHECKED_IN','ON_GOING','COMPLETED','DELETED'])[1 + n % 5], 'fill-' || n, 'bench',
                d.ids[1 + n % cardinality(d.ids)],
                timestamptz '2026-01-01T00:00:00Z' + (n % 525600) * interval '1 minute',
                timestamptz '2026-01-01T00:30:00Z' + (n % 525600) * interval '1 minute', 'ABC1D23', 'Filler'
           FROM generate_series($2::int, $3::int - 1) AS n, d`,
        [month.id, from, to],
      );
      o.say(`  filled ${to.toLocaleString('en')} appointments (${round((now() - fillStarted) / 1000)} s)`);
    }
  });
  const fillSeconds = round((now() - fillStarted) / 1000);
  await o.client.query('VACUUM (ANALYZE) appointments');
  const savedMs = await put(month.key, 'month', { time_zone: 'Europe/Berlin', slot_minutes: 15, capacity: 40 });
  await o.client.query('VACUUM (ANALYZE) capacity_usage');
  await o.client.query('CHECKPOINT');
  const [{ id: ruleId }] = (await o.client.query<{ id: string }>(`SELECT id FROM capacity_rules WHERE terminal_id = $1`, [month.id])).rows;
  const path = `/api/v1/capacity/availability?from=${encodeURIComponent(MONTH.from)}&to=${encodeURIComponent(MONTH.to)}&rule_ref=month`;
  const service = async () => {
    const res = await o.call(a, month.key, 'GET', path);
    if (res.status !== 200 || res.body.data?.[0].slots.length !== MONTH.slots) throw new Error(`availability: ${res.status}`);
  };
  const floor = () =>
    o.client.query(`SELECT slot_start, booked FROM capacity_usage WHERE rule_id = $1 AND slot_start >= $2 AND slot_start < $3`, [
      ruleId,
      MONTH.from,
      MONTH.to,
    ]);
  const samples = { service: [] as number[], floor: [] as number[] };
  for (let i = -20; i < 100; i++) {
    const [s, f] = [await timed(service), await timed(floor)];
    if (i < 0) continue;
    samples.service.push(s);
    samples.floor.push(f);
  }
  return {
    create: createFigures,
    availability: {
      stored: o.stored,
      slots: MONTH.slots,
      fill_seconds: fillSeconds,
      rule_saved_seconds: round(savedMs / 1000),
      service: figures(samples.service),
      floor: figures(samples.floor),
    },
    race,
  };
}

export function printCapacity(f: CapacityFigures, say: (line: string) => void): void {
  say(`capacity (docs/capacity.md):`);
  const line = (label: string, x: Figures) => `  ${label.padEnd(58)} p50 ${x.p50} ms, p95 ${x.p95} ms`;
  say(line(`create ${f.create.batch} appointments (${f.create.slots} slots), under a rule`, f.create.with_rule));
  say(line(`create ${f.create.batch} appointments, the same, no rule`, f.create.without_rule));
  say(`  ratio ${f.create.ratio}`);
  say(
    `  ${f.availability.stored.toLocaleString('en')} appointments filled in ${f.availability.fill_seconds} s; ` +
      `the rule saved (its slots counted) in ${f.availability.rule_saved_seconds} s`,
  );
  say(line(`availability of ${f.availability.slots} 15-minute slots (31 days)`, f.availability.service));
  say(line('  the SELECT of their counts alone, in plain SQL', f.availability.floor));
  say(
    `  ${f.race.attempts} single bookings at once for ${f.race.places} places on ${f.race.instances} instances: ` +
      `${f.race.succeeded} succeeded, ${f.race.slot_full} SLOT_FULL, ${f.race.other} other (all answered in ${f.race.wall_ms} ms)`,
  );
  say('');
}
