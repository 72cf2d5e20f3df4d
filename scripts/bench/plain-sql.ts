import type pg from 'pg';

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

/** The driver upsert of the service (DriversRepository.upsertMany), as one statement. */
export const DRIVERS_UPSERT = `
  INSERT INTO drivers AS d (tax_id, driver_license_number, license_category)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
  ON CONFLICT (tax_id) DO UPDATE
    SET driver_license_number = EXCLUDED.driver_license_number,
        license_category = EXCLUDED.license_category,
        updated_at = CASE
          WHEN (d.driver_license_number, d.license_category) IS DISTINCT FROM (EXCLUDED.driver_license_number, EXCLUDED.license_category)
          THEN now() ELSE d.updated_at END
  RETURNING id, tax_id`;

async function inTransaction(client: pg.Client, work: () => Promise<void>): Promise<void> {
  await client.query('BEGIN');
  try {
    await work();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * The rows a create of the service writes, in the cheapest plain form: drivers upserted (each tax id once,
 * its last occurrence, in tax-id order), appointments inserted in ref order, one 'created' log each.
 * Arrays through `unnest`, one statement per table. Tolerances are left to their column default, 0, the
 * value the service writes for items without them.
 */
export async function plainCreate(client: pg.Client, terminalId: string, items: AppointmentItem[]): Promise<void> {
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
    const inserted = await client.query<{ id: string }>(
      `INSERT INTO appointments (terminal_id, status, ref, layout_ref, driver_id, window_start, window_end, license_plate, summary, custom_data)
       SELECT $1, 'SCHEDULED', * FROM unnest($2::text[], $3::text[], $4::uuid[], $5::timestamptz[], $6::timestamptz[], $7::text[], $8::text[], $9::jsonb[])
       RETURNING id`,
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
    await client.query(
      `INSERT INTO appointment_logs (appointment_id, event, message) SELECT id, 'created', 'Appointment created' FROM unnest($1::uuid[]) AS id`,
      [inserted.rows.map((row) => row.id)],
    );
  });
}

/**
 * The rows an update of the service writes when a PUT sets summary and license_plate ('XYZ9876') and no status:
 * the records changed, `updated_at` now, one 'updated' log each; no driver feed event (the service writes
 * those on status changes only). Fails, as the service does, when a ref is missing.
 */
export async function plainUpdate(client: pg.Client, terminalId: string, refs: string[], summary: string): Promise<void> {
  await inTransaction(client, async () => {
    const updated = await client.query<{ id: string }>(
      `UPDATE appointments a SET summary = u.summary, license_plate = u.plate, updated_at = now()
         FROM unnest($2::text[], $3::text[], $4::text[]) AS u(ref, summary, plate)
        WHERE a.terminal_id = $1 AND a.ref = u.ref RETURNING a.id`,
      [terminalId, refs, refs.map(() => summary), refs.map(() => 'XYZ9876')],
    );
    if (updated.rows.length !== refs.length) throw new Error(`plain update: ${refs.length - updated.rows.length} refs not found`);
    await client.query(
      `INSERT INTO appointment_logs (appointment_id, event, message) SELECT id, 'updated', 'Updated summary, license_plate' FROM unnest($1::uuid[]) AS id`,
      [updated.rows.map((row) => row.id)],
    );
  });
}

/** The two SELECTs of GET …/logs: records with their drivers, then their logs newest first. */
export async function plainLogs(client: pg.Client, terminalId: string, refs: string[]): Promise<void> {
  const rows = await client.query<{ id: string }>(
    `SELECT a.*, d.tax_id, d.driver_license_number, d.license_category FROM appointments a JOIN drivers d ON d.id = a.driver_id
      WHERE a.terminal_id = $1 AND a.ref = ANY($2::text[])`,
    [terminalId, refs],
  );
  await client.query(
    `SELECT appointment_id, event, message, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') FROM appointment_logs
      WHERE appointment_id = ANY($1::uuid[]) ORDER BY appointment_id, created_at DESC, id DESC`,
    [rows.rows.map((row) => row.id)],
  );
}

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
 * The appointments with refs starting with `prefix`, their drivers and logs, as JSON text without what
 * differs by nature between two writers (ids, tax ids, the ref prefix, clock times; whether `updated_at`
 * moved past `created_at` is kept).
 */
export async function writtenRows(client: pg.Client, terminalId: string, prefix: string): Promise<string[]> {
  const rows = await client.query<{ row: string }>(
    `SELECT json_build_object(
              'ref', substr(a.ref, length($2) + 1), 'status', a.status, 'layout_ref', a.layout_ref,
              'license_plate', a.license_plate, 'summary', a.summary, 'window_start', a.window_start, 'window_end', a.window_end,
              'start_tolerance', a.start_tolerance, 'end_tolerance', a.end_tolerance, 'custom_data', a.custom_data,
              'touched', a.updated_at > a.created_at,
              'driver', json_build_object('license', d.driver_license_number, 'category', d.license_category,
                                          'touched', d.updated_at > d.created_at),
              'logs', (SELECT json_agg(json_build_array(l.event, l.message) ORDER BY l.id) FROM appointment_logs l WHERE l.appointment_id = a.id),
              'feed', (SELECT count(*) FROM driver_events e WHERE e.driver_id = d.id)
            )::text AS row
       FROM appointments a JOIN drivers d ON d.id = a.driver_id
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
    await writtenRows(client, terminalId, service.prefix),
    await writtenRows(client, terminalId, floor.prefix),
  ];
  if (serviceRows.length === 0) differences.push(`no rows under ${service.prefix}`);
  const unlike = serviceRows.findIndex((row, i) => row !== floorRows[i]);
  if (serviceRows.length !== floorRows.length)
    differences.push(`${serviceRows.length} records by the service, ${floorRows.length} by the floor`);
  else if (unlike >= 0) differences.push(`service wrote ${serviceRows[unlike]}\n  floor wrote   ${floorRows[unlike]}`);
  if (differences.length) throw new Error(`the floor of "${what}" does not write what the service writes:\n  ${differences.join('\n  ')}`);
}
