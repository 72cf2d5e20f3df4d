import type pg from 'pg';
import { BEGIN_EVENT_WRITER } from '../../src/modules/events/event-sql.js';
import { APPEND_FEED } from '../../src/modules/feed/driver-feed.js';
import { appointmentEventData } from './plain-sql.js';
import { type Figures, figures, round2, timed } from './stats.js';

/**
 * One fact, three rows or one (docs/benchmarks.md#one-fact-three-rows-or-one): a status change is written today as
 * a log entry (`appointment_logs`, read by record), a driver feed event (`driver_events`, read by driver and partner
 * in seq order, numbered by the feed's head in `driver_feeds`) and an account event (`account_events`, read by account
 * in feed order, numbered by the account's sequence). The alternative measured here is one row read three ways: a
 * table `bench_facts` with the columns of all three and an index for each read (the account's seq from the same
 * trigger, the driver's seq from the same feed heads), created for the measurement and dropped after it. Both sides
 * write the same changes of the same appointments in plain SQL, one statement in a transaction marked as an event
 * writer, alternating; then the three reads are timed on each.
 */
export interface FactsFigures {
  changes: number;
  rounds: number;
  write: { three_rows: Figures; one_row: Figures; ratio: number };
  /** Heap and index bytes per change written, after the rounds. */
  bytes_per_change: { three_rows: number; one_row: number };
  reads: { name: string; three_rows: Figures; one_row: Figures; ratio: number }[];
}

const ONE_ROW_TABLE = `
  CREATE TABLE bench_facts (
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    seq bigint NOT NULL,
    tx bigint NOT NULL,
    type text NOT NULL,
    data jsonb NOT NULL,
    record_id uuid REFERENCES appointments (id) ON DELETE CASCADE,
    log_event text,
    log_message text,
    driver_id uuid REFERENCES drivers (id),
    driver_seq bigint,
    driver_type text,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (account_id, seq)
  );
  CREATE INDEX bench_facts_feed_idx ON bench_facts (account_id, tx, seq);
  CREATE INDEX bench_facts_created_idx ON bench_facts USING brin (created_at);
  CREATE INDEX bench_facts_record_idx ON bench_facts (record_id, created_at DESC, seq DESC) WHERE record_id IS NOT NULL;
  CREATE INDEX bench_facts_driver_idx ON bench_facts (driver_id, account_id, driver_seq) WHERE driver_id IS NOT NULL;
  CREATE TRIGGER bench_facts_seq BEFORE INSERT ON bench_facts FOR EACH ROW EXECUTE FUNCTION account_events_next_seq();`;

/** The appointments of `$1` (in order) with their drivers, as the change's statements read them. */
const CHANGED = `x AS (SELECT * FROM unnest($1::uuid[]) WITH ORDINALITY AS x(id, ord)),
  rec AS (SELECT x.ord, a.*, d.tax_id, d.driver_license_number, d.license_category
            FROM x JOIN appointments a ON a.id = x.id JOIN drivers d ON d.id = a.driver_id)`;

const FEED_PAYLOAD = `jsonb_build_object('id', r.id, 'ref', r.ref, 'status', 'ON_GOING', 'previous_status', 'SCHEDULED')`;
const EVENT_DATA = `${appointmentEventData('r', 'r')} || jsonb_build_object('from', 'SCHEDULED', 'to', 'ON_GOING')`;
const LOG = `'on_going', 'Status changed from SCHEDULED to ON_GOING'`;

/** Today's three rows: the log entry, the driver's feed event (APPEND_FEED, as the service writes it) and the account event. */
const THREE_ROWS = `WITH ${CHANGED},
  logged AS (INSERT INTO appointment_logs (appointment_id, event, message) SELECT r.id, ${LOG} FROM rec r ORDER BY r.ord),
  input AS (SELECT r.driver_id, r.terminal_id AS account_id, 'appointment.status' AS type, ${FEED_PAYLOAD} AS payload, r.ord FROM rec r),
  ${APPEND_FEED('input', 'appended')},
  evented AS (
    INSERT INTO account_events (account_id, tx, type, data)
    SELECT r.terminal_id, pg_current_xact_id()::text::bigint, 'appointment.status_changed', ${EVENT_DATA} FROM rec r ORDER BY r.ord
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM appended) + (SELECT count(*) FROM evented) AS written`;

/** One row read three ways: the same feed heads bumped, one row carrying the log entry, the feed event's seq and the event. */
const ONE_ROW = `WITH ${CHANGED},
  counts AS (SELECT driver_id, terminal_id AS account_id, count(*) AS n FROM rec GROUP BY driver_id, terminal_id),
  bumped AS (
    INSERT INTO driver_feeds AS f (driver_id, account_id, last_seq)
    SELECT driver_id, account_id, n FROM counts ORDER BY driver_id, account_id
    ON CONFLICT (driver_id, account_id) DO UPDATE SET last_seq = f.last_seq + EXCLUDED.last_seq
    RETURNING f.driver_id, f.account_id, f.last_seq
  ),
  written AS (
    INSERT INTO bench_facts (account_id, tx, type, data, record_id, log_event, log_message, driver_id, driver_seq, driver_type)
    SELECT r.terminal_id, pg_current_xact_id()::text::bigint, 'appointment.status_changed', ${EVENT_DATA}, r.id, ${LOG}, r.driver_id,
           b.last_seq - c.n + row_number() OVER (PARTITION BY r.driver_id, r.terminal_id ORDER BY r.ord), 'appointment.status'
      FROM rec r JOIN bumped b ON b.driver_id = r.driver_id AND b.account_id = r.terminal_id
      JOIN counts c ON c.driver_id = r.driver_id AND c.account_id = r.terminal_id
     ORDER BY r.ord
    RETURNING 1
  )
  SELECT 2 * count(*) AS written FROM written`;

/** The three reads, on each shape: a record's log (100 refs), a driver's feed, an account's feed page. */
interface ReadInput {
  refs: string[];
  driverId: string;
  accountId: string;
  /** The middle of the account's feed on this side. */
  after: unknown[];
}

const READS: { name: string; three: string; one: string; args: (r: ReadInput) => unknown[] }[] = [
  {
    name: 'logs of 100 records',
    three: `SELECT appointment_id, event, message, created_at FROM appointment_logs WHERE appointment_id = ANY($1::uuid[])
             ORDER BY appointment_id, created_at DESC, id DESC`,
    one: `SELECT record_id, log_event, log_message, created_at FROM bench_facts WHERE record_id = ANY($1::uuid[])
           ORDER BY record_id, created_at DESC, seq DESC`,
    args: (r) => [r.refs],
  },
  {
    name: "a driver's feed, 500 after seq 0",
    three: `SELECT seq, type, payload, created_at FROM driver_events WHERE driver_id = $1 AND account_id = $2 AND seq > 0 ORDER BY seq LIMIT 500`,
    one: `SELECT driver_seq, driver_type, data, created_at FROM bench_facts WHERE driver_id = $1 AND account_id = $2 AND driver_seq > 0
           ORDER BY driver_seq LIMIT 500`,
    args: (r) => [r.driverId, r.accountId],
  },
  {
    name: "an account's feed, a page of 100",
    three: `SELECT id, seq, type, data, created_at FROM account_events WHERE account_id = $1 AND (tx, seq) > ($2::bigint, $3::bigint)
             ORDER BY tx, seq LIMIT 100`,
    one: `SELECT seq, type, data, created_at FROM bench_facts WHERE account_id = $1 AND (tx, seq) > ($2::bigint, $3::bigint)
           ORDER BY tx, seq LIMIT 100`,
    args: (r) => [r.accountId, ...r.after],
  },
];

const bytes = async (client: pg.Client, tables: string[]) =>
  Number(
    (await client.query<{ n: string }>(`SELECT sum(pg_total_relation_size(t::regclass)) AS n FROM unnest($1::text[]) AS t`, [tables]))
      .rows[0].n,
  );

/**
 * `ids`: appointments of the terminal `terminalId`, SCHEDULED, each with a driver of its own, none of them another
 * section's. Writes `rounds` times the change of every one on each side (nothing else moves them), then reads.
 */
export async function factsBench(client: pg.Client, terminalId: string, ids: string[], rounds: number): Promise<FactsFigures> {
  await client.query(ONE_ROW_TABLE);
  try {
    const write = async (text: string) => {
      await client.query(BEGIN_EVENT_WRITER);
      try {
        const { rows } = await client.query<{ written: string }>(text, [ids]);
        if (Number(rows[0].written) !== 2 * ids.length) throw new Error(`bench facts: ${rows[0].written} rows written`);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    };
    const threeTables = ['appointment_logs', 'driver_events', 'account_events'];
    const before = await bytes(client, threeTables);
    await write(THREE_ROWS);
    await write(ONE_ROW);
    const times = { three: [] as number[], one: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      for (const side of r % 2 === 0 ? (['three', 'one'] as const) : (['one', 'three'] as const))
        times[side].push(await timed(() => write(side === 'three' ? THREE_ROWS : ONE_ROW)));
    }
    await client.query('ANALYZE appointment_logs, driver_events, account_events, bench_facts');
    const changes = ids.length * (rounds + 1);
    const sizes = {
      three_rows: Math.round(((await bytes(client, threeTables)) - before) / changes),
      one_row: Math.round((await bytes(client, ['bench_facts'])) / changes),
    };
    const { driver_id: driverId } = (
      await client.query<{ driver_id: string }>(`SELECT driver_id FROM appointments WHERE id = $1`, [ids[0]])
    ).rows[0];
    // Each side's account feed is read from its middle.
    const middleOf = async (table: string) =>
      Object.values(
        (
          await client.query<{ tx: string; seq: string }>(
            `SELECT tx, seq FROM ${table} WHERE account_id = $1 ORDER BY tx, seq OFFSET (SELECT count(*) / 2 FROM ${table} WHERE account_id = $1) LIMIT 1`,
            [terminalId],
          )
        ).rows[0],
      );
    const input = { refs: ids.slice(0, 100), driverId, accountId: terminalId };
    const sides = {
      three: { ...input, after: await middleOf('account_events') },
      one: { ...input, after: await middleOf('bench_facts') },
    };
    const reads = [];
    for (const read of READS) {
      const samples = { three: [] as number[], one: [] as number[] };
      for (let i = 0; i < 60; i++) {
        for (const side of i % 2 === 0 ? (['three', 'one'] as const) : (['one', 'three'] as const))
          samples[side].push(await timed(() => client.query(side === 'three' ? read.three : read.one, read.args(sides[side]))));
      }
      const [three, one] = [figures(samples.three.slice(10)), figures(samples.one.slice(10))];
      reads.push({ name: read.name, three_rows: three, one_row: one, ratio: round2(one.p50 / three.p50) });
    }
    const [three, one] = [figures(times.three), figures(times.one)];
    return {
      changes: ids.length,
      rounds,
      write: { three_rows: three, one_row: one, ratio: round2(one.p50 / three.p50) },
      bytes_per_change: sizes,
      reads,
    };
  } finally {
    await client.query('DROP TABLE IF EXISTS bench_facts');
  }
}

export function printFacts(f: FactsFigures, say: (line: string) => void): void {
  say(`one fact, three rows or one: ${f.changes} status changes in one statement, ${f.rounds} rounds a side, plain SQL:`);
  say(`  three rows (log entry, driver feed event, account event)  p50 ${f.write.three_rows.p50} ms, p95 ${f.write.three_rows.p95} ms`);
  say(`  one row read three ways                                   p50 ${f.write.one_row.p50} ms, p95 ${f.write.one_row.p95} ms`);
  say(
    `  ratio ${f.write.ratio} (one ÷ three); bytes per change, tables and indexes: ${f.bytes_per_change.three_rows} against ${f.bytes_per_change.one_row}`,
  );
  for (const read of f.reads)
    say(`  read ${read.name.padEnd(34)} three rows p50 ${read.three_rows.p50} ms, one row p50 ${read.one_row.p50} ms (${read.ratio})`);
  say('');
}
