import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import './child-preload.js';
import { DRIVERS_UPSERT } from '../../src/modules/drivers/drivers.repository.js';
import { BEGIN_EVENT_WRITER } from '../../src/modules/events/event-sql.js';
import { LOG_AND_EVENT } from './plain-sql.js';

/**
 * The floor of a single-item create: `node:http` and a `pg` pool of the service's size, nothing else. POST
 * /api/v1/appointments with one item (alone or in an array) runs the service's writes in one transaction
 * (driver upsert, appointment, 'created' log) and answers as the service does. No API key, no validation,
 * no layout or duplicate check: those are what the service adds. Started by the bench with DATABASE_URL,
 * DATABASE_POOL_SIZE and TERMINAL_ID; reports its port over IPC.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE) });
const terminalId = process.env.TERMINAL_ID;

interface Item {
  driver: { tax_id: string; driver_license_number: string; license_category: string };
  appointment: Record<string, unknown> & { ref: string };
}

async function create({ driver, appointment: a }: Item): Promise<string> {
  const client = await pool.connect();
  try {
    await client.query(BEGIN_EVENT_WRITER);
    const upserted = await client.query<{ id: string }>(DRIVERS_UPSERT, [
      [driver.tax_id],
      [driver.driver_license_number],
      [driver.license_category],
    ]);
    const inserted = await client.query<{ id: string }>(
      `INSERT INTO appointments (terminal_id, status, ref, layout_ref, driver_id, window_start, window_end, license_plate, summary, custom_data)
       VALUES ($1, 'SCHEDULED', $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
      [
        terminalId,
        a.ref,
        a.layout_ref,
        upserted.rows[0].id,
        a.window_start,
        a.window_end,
        a.license_plate,
        a.summary,
        JSON.stringify(a.custom_data),
      ],
    );
    const id = inserted.rows[0].id;
    await client.query(LOG_AND_EVENT('created', 'Appointment created', 'appointment.created', 'bound'), [
      [id],
      [JSON.stringify({ layout_ref: a.layout_ref })],
    ]);
    await client.query('COMMIT');
    return id;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

const failure = (code: string, message: string) => ({ success: false, error: { code, message } });

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/api/v1/appointments')
    return reply(res, 404, failure('NOT_FOUND', 'POST /api/v1/appointments only'));
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let item: Item;
    try {
      const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const items = Array.isArray(body) ? body : [body];
      if (items.length !== 1) return reply(res, 400, failure('VALIDATION_ERROR', 'one item only'));
      item = items[0] as Item;
    } catch {
      return reply(res, 400, failure('VALIDATION_ERROR', 'malformed JSON'));
    }
    create(item).then(
      (id) => reply(res, 201, { success: true, data: { created_refs: [item.appointment.ref], created_ids: [id], status: 'created' } }),
      (error: { code?: string; message?: string }) =>
        reply(
          res,
          error.code === '23505' ? 409 : 500,
          failure(error.code === '23505' ? 'DUPLICATE_KEY' : 'INTERNAL_ERROR', String(error.message)),
        ),
    );
  });
});

server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
