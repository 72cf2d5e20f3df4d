import type pg from 'pg';
import { DRIVERS_UPSERT } from '../../src/modules/drivers/drivers.repository.js';
import { SET_AUDIT_SCOPE } from '../../src/database/audit-context.js';
import { pipelined, type StatementResult } from '../../src/database/prepared.js';
import { BEGIN_EVENT_WRITER, EVENT_WRITER_OPENING } from '../../src/modules/events/event-sql.js';

export interface AppointmentItem {
  driver: { tax_id: string; driver_license_number: string; license_category: string };
  appointment: {
    ref: string;
    layout_ref: string;
    window_start: string;
    window_end: string;
    license_plate: string;
    summary: string;
    custom_data: Record<string, unknown>;
  };
}

const byKey =
  <T>(key: (t: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/**
 * An appointment event's `data` built in SQL from the appointment (alias `a`) and its driver's columns (alias
 * `d`): the record as the logs query shows it, and the driver; the same keys the service writes.
 */
export const appointmentEventData = (a: string, d: string) =>
  `jsonb_build_object(
     'appointment', jsonb_build_object(
       'id', ${a}.id, 'terminal_id', ${a}.terminal_id, 'ref', ${a}.ref, 'layout_ref', ${a}.layout_ref, 'user_tax_id', ${d}.tax_id,
       'status', ${a}.status, 'summary', ${a}.summary, 'license_plate', ${a}.license_plate, 'window_start', ${a}.window_start,
       'window_end', ${a}.window_end, 'start_tolerance', ${a}.start_tolerance, 'end_tolerance', ${a}.end_tolerance,
       'custom_data', ${a}.custom_data, 'created_at', ${a}.created_at, 'updated_at', ${a}.updated_at,
       'arrived_at', ${a}.arrived_at, 'entered_at', ${a}.entered_at, 'departed_at', ${a}.departed_at,
       'booked_by', CASE WHEN ${a}.booked_by_id IS NULL THEN NULL
                         ELSE jsonb_build_object('carrier_id', ${a}.booked_by_id, 'carrier_name', ${a}.booked_by_name) END),
     'driver', jsonb_build_object('tax_id', ${d}.tax_id, 'driver_license_number', ${d}.driver_license_number,
                                  'driver_license_category', ${d}.license_category))`;

/**
 * Writes a log entry and an account event of `type` for each appointment id (events in the ids' order), in one
 * statement. The log entries' `data`: `'bound'`, each id's from the array `$2` (JSON text, in the ids' order); or the
 * same for all.
 */
export const LOG_AND_EVENT = (event: string, message: string, type: string, data: 'bound' | Record<string, unknown>) =>
  `WITH logged AS (
     INSERT INTO appointment_logs (appointment_id, event, message, data)
     ${
       data === 'bound'
         ? `SELECT x.id, '${event}', '${message}', x.data FROM unnest($1::uuid[], $2::jsonb[]) AS x(id, data)`
         : `SELECT id, '${event}', '${message}', '${JSON.stringify(data)}'::jsonb FROM unnest($1::uuid[]) AS id`
     }
   )
   INSERT INTO account_events (account_id, tx, type, data)
   SELECT a.terminal_id, pg_current_xact_id()::text::bigint, '${type}', ${appointmentEventData('a', 'd')}
     FROM unnest($1::uuid[]) WITH ORDINALITY AS x(id, ord) JOIN appointments a ON a.id = x.id JOIN drivers d ON d.id = a.driver_id
    ORDER BY x.ord`;

/** A transaction that writes account events begins marked as an event writer (the table refuses any other), as the service's do. */
async function inTransaction(client: pg.Client | pg.PoolClient, work: () => Promise<void>): Promise<void> {
  await client.query(BEGIN_EVENT_WRITER);
  try {
    await work();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * One statement that writes account events, in a transaction of its own marked as an event writer, in one round
 * trip: the opening, the statement with its values bound and the COMMIT pipelined over the extended protocol with
 * one Sync, each a named statement parsed once per connection (the tightest plain form; the service's transactions
 * go the same way, src/database/prepared.ts). `auditScope`: the transaction's `gate.audit` (its entries' and logs'
 * actor, address and agent), set in the opening as the service sets it. A failure leaves the transaction aborted: rolled back.
 */
async function writingEvents(pool: pg.Pool, text: string, values: unknown[], auditScope?: string): Promise<StatementResult> {
  const client = await pool.connect();
  try {
    const opening = [
      ...EVENT_WRITER_OPENING.map((step) => ({ text: step })),
      ...(auditScope === undefined ? [] : [{ text: SET_AUDIT_SCOPE, values: [auditScope] }]),
    ];
    const steps = [...opening, { text, values }, { text: 'COMMIT' }];
    const results = await pipelined(client, steps, { named: true }).catch(async (error: unknown) => {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    });
    return results[opening.length];
  } finally {
    client.release();
  }
}

/**
 * Who writes a floor's audit entries: the audited tables' triggers, as in the service (the connection's `gate.audit`
 * giving their scope); or, where the caller has disabled the appointments' audit triggers, the floor's own statements
 * (the same entries, from the same setting), as plain SQL would with no trigger.
 */
export type FloorEntries = 'triggers' | 'statements';

/** The scope of the entries a floor writes itself: the connection's `gate.audit`. */
const AUDIT_SCOPE = `(SELECT current_setting('gate.audit')::jsonb AS s) sc`;

/**
 * The rows a create of the service writes, in the cheapest plain form: drivers upserted (each tax id once,
 * its last occurrence, in tax-id order), appointments inserted in ref order, one 'created' log (its `data` the
 * layout ref, its actor the connection's audit scope's, as the column's default takes it) and one
 * `appointment.created` event each (events in batch order).
 * Arrays through `unnest`, one statement per table. Tolerances are left to their column default, 0, the
 * value the service writes for items without them. Each record's audit entry as `entries` says.
 */
export async function plainCreate(
  client: pg.Client,
  terminalId: string,
  items: AppointmentItem[],
  entries: FloorEntries = 'triggers',
): Promise<void> {
  await inTransaction(client, async () => {
    const drivers = [...new Map(items.map((i) => [i.driver.tax_id, i.driver])).values()].sort(byKey((d) => d.tax_id));
    const upserted = await client.query<{ id: string; tax_id: string }>(DRIVERS_UPSERT, [
      drivers.map((d) => d.tax_id),
      drivers.map((d) => d.driver_license_number),
      drivers.map((d) => d.license_category),
    ]);
    const driverId = new Map(upserted.rows.map((row) => [row.tax_id, row.id]));
    const sorted = [...items].sort(byKey((i) => i.appointment.ref));
    const a = sorted.map((i) => i.appointment);
    const insert = `INSERT INTO appointments (terminal_id, status, ref, layout_ref, driver_id, window_start, window_end, license_plate, summary, custom_data)
       SELECT $1, 'SCHEDULED', * FROM unnest($2::text[], $3::text[], $4::uuid[], $5::timestamptz[], $6::timestamptz[], $7::text[], $8::text[], $9::jsonb[])`;
    const inserted = await client.query<{ id: string; ref: string }>(
      entries === 'triggers'
        ? `${insert} RETURNING id, ref`
        : `WITH inserted AS (${insert} RETURNING id, ref, terminal_id), audited AS (
             INSERT INTO audit_entries (account_id, actor, action, target, request_id, ip, user_agent)
             SELECT i.terminal_id, s->'actor', 'appointment.created', jsonb_build_object('type', 'appointment', 'id', i.id, 'ref', i.ref),
                    s->>'request_id', s->>'ip', s->>'user_agent'
               FROM inserted i, ${AUDIT_SCOPE}
           )
           SELECT id, ref FROM inserted`,
      [
        terminalId,
        a.map((x) => x.ref),
        a.map((x) => x.layout_ref),
        sorted.map((i) => driverId.get(i.driver.tax_id)),
        a.map((x) => x.window_start),
        a.map((x) => x.window_end),
        a.map((x) => x.license_plate),
        a.map((x) => x.summary),
        a.map((x) => JSON.stringify(x.custom_data)),
      ],
    );
    const idOf = new Map(inserted.rows.map((row) => [row.ref, row.id]));
    await client.query(LOG_AND_EVENT('created', 'Appointment created', 'appointment.created', 'bound'), [
      items.map((i) => idOf.get(i.appointment.ref)),
      items.map((i) => JSON.stringify({ layout_ref: i.appointment.layout_ref })),
    ]);
  });
}

/**
 * The rows an update of the service writes when a PUT sets summary and license_plate ('XYZ9876') and no status:
 * the records changed, `updated_at` now, one 'updated' log (its `data` the fields changed) and one
 * `appointment.updated` event each (in the order of the refs); no driver feed event (the service writes those on status changes only); each record's audit
 * entry as `entries` says. Fails, as the service does, when a ref is missing.
 */
export async function plainUpdate(
  client: pg.Client,
  terminalId: string,
  refs: string[],
  summary: string,
  entries: FloorEntries = 'triggers',
): Promise<void> {
  await inTransaction(client, async () => {
    const updated = await client.query<{ id: string; ref: string }>(
      entries === 'triggers'
        ? `UPDATE appointments a SET summary = u.summary, license_plate = u.plate, updated_at = now()
             FROM unnest($2::text[], $3::text[], $4::text[]) AS u(ref, summary, plate)
            WHERE a.terminal_id = $1 AND a.ref = u.ref RETURNING a.id, a.ref`
        : // The rows before, read by the update itself (a locked self-join); each entry's changes, of the two columns.
          `WITH updated AS (
             UPDATE appointments a SET summary = u.summary, license_plate = u.plate, updated_at = now()
               FROM unnest($2::text[], $3::text[], $4::text[]) AS u(ref, summary, plate),
                    LATERAL (SELECT summary, license_plate FROM appointments b WHERE b.terminal_id = $1 AND b.ref = u.ref FOR UPDATE) o
              WHERE a.terminal_id = $1 AND a.ref = u.ref
              RETURNING a.id, a.ref, a.terminal_id, a.booked_by_id, o.summary AS old_summary, a.summary,
                        o.license_plate AS old_plate, a.license_plate
           ), changed AS (
             SELECT *, NULLIF(
                      CASE WHEN old_summary IS DISTINCT FROM summary
                           THEN jsonb_build_object('summary', jsonb_build_array(old_summary, summary)) ELSE '{}' END
                      || CASE WHEN old_plate IS DISTINCT FROM license_plate
                              THEN jsonb_build_object('license_plate', jsonb_build_array(old_plate, license_plate)) ELSE '{}' END,
                      '{}') AS changes
               FROM updated
           ), audited AS (
             INSERT INTO audit_entries (account_id, actor, action, target, changes, request_id, ip, user_agent)
             SELECT account_id, s->'actor', 'appointment.updated', jsonb_build_object('type', 'appointment', 'id', c.id, 'ref', c.ref),
                    c.changes, s->>'request_id', s->>'ip', s->>'user_agent'
               FROM changed c
               CROSS JOIN LATERAL (SELECT DISTINCT x FROM (VALUES (c.terminal_id), (c.booked_by_id)) v(x) WHERE x IS NOT NULL) acc(account_id),
                    ${AUDIT_SCOPE}
              WHERE c.changes IS NOT NULL
           )
           SELECT id, ref FROM updated`,
      [terminalId, refs, refs.map(() => summary), refs.map(() => 'XYZ9876')],
    );
    if (updated.rows.length !== refs.length) throw new Error(`plain update: ${refs.length - updated.rows.length} refs not found`);
    const idOf = new Map(updated.rows.map((row) => [row.ref, row.id]));
    await client.query(
      LOG_AND_EVENT('updated', 'Updated summary, license_plate', 'appointment.updated', { fields: ['summary', 'license_plate'] }),
      [refs.map((ref) => idOf.get(ref))],
    );
  });
}

/** The two SELECTs of GET …/logs: records with their drivers, then their logs newest first. */
export async function plainLogs(client: pg.Client, terminalId: string, refs: string[]): Promise<void> {
  const rows = await client.query<{ id: string }>(
    `SELECT a.*, d.tax_id, d.driver_license_number, d.license_category FROM appointments a
      CROSS JOIN LATERAL (SELECT tax_id, driver_license_number, license_category FROM drivers WHERE id = a.driver_id LIMIT 1) d
      WHERE a.terminal_id = $1 AND a.ref = ANY($2::text[])`,
    [terminalId, refs],
  );
  await client.query(
    `SELECT appointment_id, event, message, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') FROM appointment_logs
      WHERE appointment_id = ANY($1::uuid[]) ORDER BY appointment_id, created_at DESC, id DESC`,
    [rows.rows.map((row) => row.id)],
  );
}

/**
 * The rows an accepted driver check-in with one ticket writes, in the cheapest plain form: two statements, each a
 * transaction of one round trip (`writingEvents`), as the handshake needs (the attempt is stored before the terminal is asked, its outcome after). The first
 * reads the appointment with its driver (what the terminal is sent) and starts the attempt with its log entry
 * and `checkin.requested` event; the second moves the appointment, stores the ticket, accepts the attempt, logs
 * both, writes the terminal's two events and appends the two driver feed events, guarded by the status as the
 * service's move is; the move stamps the wait to the ticket, as the service's does, so the checkins' trigger writes
 * the appointment no second time. It skips what the service also does
 * and this run does not exercise: the check-in window (always open here) and trips to arrive (none here).
 */
export async function plainCheckin(
  pool: pg.Pool,
  appointmentId: string,
  ids: { checkin: string; ticket: string },
  ticket: { layout_ref: string; content: Record<string, unknown> },
  auditScope: string,
): Promise<void> {
  const started = await writingEvents(
    pool,
    `WITH a AS (
       SELECT a.*, d.tax_id, d.driver_license_number, d.license_category
         FROM appointments a JOIN drivers d ON d.id = a.driver_id WHERE a.id = $1
     ), attempt AS (
       INSERT INTO checkins (id, appointment_id, driver_id, terminal_id, source, status)
       SELECT $2, id, driver_id, terminal_id, 'driver', 'pending' FROM a WHERE status = 'SCHEDULED'
       RETURNING appointment_id
     ), logged AS (
       INSERT INTO appointment_logs (appointment_id, event, message, data)
       SELECT appointment_id, 'checkin_requested', 'Check-in ' || $2 || ' requested by the driver',
              jsonb_build_object('checkin_id', $2::uuid, 'source', 'driver') FROM attempt
     ), requested AS (
       INSERT INTO account_events (account_id, tx, type, data)
       SELECT a.terminal_id, pg_current_xact_id()::text::bigint, 'checkin.requested',
              ${appointmentEventData('a', 'a')} || jsonb_build_object('checkin', jsonb_build_object('id', $2::uuid, 'status', 'pending', 'reason', null))
         FROM a JOIN attempt ON attempt.appointment_id = a.id
     )
     SELECT a.* FROM a JOIN attempt ON attempt.appointment_id = a.id`,
    [appointmentId, ids.checkin],
    auditScope,
  );
  if (started.rows.length !== 1) throw new Error(`plain check-in: appointment ${appointmentId} cannot be checked in`);
  const accepted = await writingEvents(
    pool,
    `WITH moved AS (
       UPDATE appointments SET status = 'CHECKED_IN', updated_at = now(), arrived_at = COALESCE(arrived_at, now()),
              ticket_wait_seconds = COALESCE(ticket_wait_seconds, (SELECT trunc(extract(epoch FROM now() - c.created_at))::int FROM checkins c WHERE c.id = $2))
         WHERE id = $1 AND status = 'SCHEDULED'
       RETURNING *
     ), ticket AS (
       INSERT INTO tickets (id, terminal_id, appointment_id, layout_ref, content, checkin_id)
       SELECT $3, m.terminal_id, m.id, l.ref, $4::jsonb, $2 FROM moved m
         JOIN layouts l ON l.owner_id = m.terminal_id AND l.layout_set = 'ticket' AND l.ref = $5
       RETURNING *
     ), logged AS (
       INSERT INTO appointment_logs (appointment_id, event, message, data)
       SELECT id, 'checked_in', 'Check-in ' || $2 || ' accepted by the terminal server',
              jsonb_build_object('from', 'SCHEDULED', 'to', 'CHECKED_IN', 'via', 'checkin', 'outcome', 'accepted', 'checkin_id', $2::uuid)
         FROM moved
       UNION ALL
       SELECT appointment_id, 'ticket_created', 'Ticket ' || id || ' created (layout ' || layout_ref || ')',
              jsonb_build_object('ticket_id', id, 'layout_ref', layout_ref) FROM ticket
     ), accepted AS (
       UPDATE checkins SET status = 'accepted', ticket_ids = ARRAY[$3::uuid], updated_at = now() WHERE id = $2 AND EXISTS (SELECT FROM ticket)
     ), events AS (
       INSERT INTO account_events (account_id, tx, type, data)
       SELECT m.terminal_id, pg_current_xact_id()::text::bigint, 'appointment.status_changed',
              ${appointmentEventData('m', 'd')} || jsonb_build_object('from', 'SCHEDULED', 'to', 'CHECKED_IN', 'checkin_id', $2::uuid)
         FROM moved m JOIN drivers d ON d.id = m.driver_id
       UNION ALL
       SELECT t.terminal_id, pg_current_xact_id()::text::bigint, 'ticket.created',
              jsonb_build_object('id', t.id, 'appointment_id', t.appointment_id, 'appointment_ref', m.ref, 'terminal_id', t.terminal_id,
                                 'layout_ref', t.layout_ref, 'content', t.content, 'created_at', t.created_at, 'updated_at', t.updated_at)
         FROM ticket t, moved m
     ), head AS (
       INSERT INTO driver_feeds AS f (driver_id, account_id, last_seq) SELECT driver_id, terminal_id, 2 FROM moved
       ON CONFLICT (driver_id, account_id) DO UPDATE SET last_seq = f.last_seq + 2
       RETURNING last_seq
     )
     INSERT INTO driver_events (driver_id, account_id, seq, type, payload)
     SELECT m.driver_id, m.terminal_id, h.last_seq - 1, 'appointment.status',
            jsonb_build_object('id', m.id, 'ref', m.ref, 'status', 'CHECKED_IN', 'previous_status', 'SCHEDULED', 'checkin_id', $2::uuid)
       FROM moved m, head h
     UNION ALL
     SELECT m.driver_id, m.terminal_id, h.last_seq, 'ticket.created',
            jsonb_build_object('id', t.id, 'terminal_id', t.terminal_id, 'appointment_id', t.appointment_id, 'appointment_ref', m.ref,
                               'layout_ref', t.layout_ref, 'content', t.content, 'created_at', t.created_at, 'updated_at', t.updated_at)
       FROM moved m, head h, ticket t
     RETURNING seq`,
    [appointmentId, ids.checkin, ids.ticket, JSON.stringify(ticket.content), ticket.layout_ref],
    auditScope,
  );
  if (accepted.rows.length !== 2) throw new Error(`plain check-in: appointment ${appointmentId} was not checked in`);
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** JSON text without what differs by nature between two writers: ids, and tax ids (each writer's own drivers). */
const withoutIds = (text: string) =>
  `regexp_replace(regexp_replace(${text}, '${UUID}', '<id>', 'g'), '"tax_id": "[0-9]+"', '"tax_id": "<tax>"', 'g')`;

/** Rows per table of the public schema. */
export async function tableCounts(client: pg.Client): Promise<Map<string, number>> {
  const tables = (await client.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`))
    .rows;
  const counts = await client.query<{ name: string; n: string }>(
    tables.map((t) => `SELECT '${t.name}' AS name, count(*) AS n FROM "${t.name}"`).join(' UNION ALL '),
  );
  return new Map(counts.rows.map((row) => [row.name, Number(row.n)]));
}

/**
 * How much of each log entry the same-writes check compares: `'all'`, its event, message, `data` and `actor` (ids and
 * tax ids left out); `'text'`, its event and message alone, for the floor that does not write the entries' data and
 * actor yet (the single-item create's bare server: see docs/benchmarks.md).
 */
export type LogsCompared = 'all' | 'text';

/**
 * The appointments with refs starting with `prefix`, their drivers and logs, as JSON text without what
 * differs by nature between two writers (ids, also inside log messages, tax ids, the ref prefix, clock times; whether `updated_at`
 * moved past `created_at` is kept).
 */
export async function writtenRows(client: pg.Client, terminalId: string, prefix: string, logs: LogsCompared = 'all'): Promise<string[]> {
  const rows = await client.query<{ row: string }>(
    `SELECT json_build_object(
              'ref', substr(a.ref, length($2) + 1), 'status', a.status, 'layout_ref', a.layout_ref,
              'license_plate', a.license_plate, 'summary', a.summary, 'window_start', a.window_start, 'window_end', a.window_end,
              'start_tolerance', a.start_tolerance, 'end_tolerance', a.end_tolerance, 'custom_data', a.custom_data,
              'touched', a.updated_at > a.created_at,
              'driver', json_build_object('license', d.driver_license_number, 'category', d.license_category,
                                          'touched', d.updated_at > d.created_at),
              'logs', (SELECT json_agg(json_build_array(l.event, regexp_replace(l.message, '${UUID}', '<id>', 'g')${
                logs === 'all' ? `, ${withoutIds('l.data::text')}, ${withoutIds('l.actor::text')}` : ''
              }) ORDER BY l.id)
                         FROM appointment_logs l WHERE l.appointment_id = a.id),
              'tickets', (SELECT json_agg(json_build_array(t.layout_ref, t.checkin_id IS NOT NULL) ORDER BY t.created_at) FROM tickets t WHERE t.appointment_id = a.id),
              'checkins', (SELECT json_agg(json_build_array(c.source, c.status, cardinality(c.ticket_ids)) ORDER BY c.created_at) FROM checkins c WHERE c.appointment_id = a.id),
              'feed', (SELECT json_agg(json_build_array(e.type, (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(e.payload) k)) ORDER BY e.seq)
                         FROM driver_events e WHERE e.driver_id = d.id),
              'events', ev.events
            )::text AS row
       FROM appointments a JOIN drivers d ON d.id = a.driver_id
       LEFT JOIN (
         SELECT COALESCE(e.data->'appointment'->>'id', e.data->>'appointment_id') AS appointment_id,
                json_agg(json_build_array(e.type, (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(e.data) k),
                                          (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(COALESCE(e.data->'appointment', '{}')) k))
                         ORDER BY e.seq) AS events
           FROM account_events e WHERE e.account_id = $1 GROUP BY 1
       ) ev ON ev.appointment_id = a.id::text
      WHERE a.terminal_id = $1 AND starts_with(a.ref, $2)
      ORDER BY 1`,
    [terminalId, prefix],
  );
  return rows.rows.map((r) => r.row);
}

/**
 * Runs the service's write and the floor's write of the same input and fails unless both changed the
 * same tables by the same row counts and left the same rows behind: a floor that writes less than the
 * service would flatter every ratio.
 */
export async function checkSameWrites(
  client: pg.Client,
  terminalId: string,
  what: string,
  service: { prefix: string; write: () => Promise<unknown> },
  floor: { prefix: string; write: () => Promise<unknown> },
  logs: LogsCompared = 'all',
): Promise<void> {
  const before = await tableCounts(client);
  await service.write();
  const middle = await tableCounts(client);
  await floor.write();
  const after = await tableCounts(client);
  const differences: string[] = [];
  for (const [table, count] of before) {
    const [byService, byFloor] = [middle.get(table)! - count, after.get(table)! - middle.get(table)!];
    if (byService !== byFloor) differences.push(`${table}: service +${byService} rows, floor +${byFloor}`);
  }
  const [serviceRows, floorRows] = [
    await writtenRows(client, terminalId, service.prefix, logs),
    await writtenRows(client, terminalId, floor.prefix, logs),
  ];
  if (serviceRows.length === 0) differences.push(`no rows under ${service.prefix}`);
  const unlike = serviceRows.findIndex((row, i) => row !== floorRows[i]);
  if (serviceRows.length !== floorRows.length)
    differences.push(`${serviceRows.length} records by the service, ${floorRows.length} by the floor`);
  else if (unlike >= 0) differences.push(`service wrote ${serviceRows[unlike]}\n  floor wrote   ${floorRows[unlike]}`);
  if (differences.length) throw new Error(`the floor of "${what}" does not write what the service writes:\n  ${differences.join('\n  ')}`);
}
