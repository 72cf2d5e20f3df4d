import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Socket } from 'socket.io-client';
import { DataSource } from 'typeorm';
import { plateLookupSql } from '../../src/modules/appointments/appointments.definition.js';
import { plateFold, plateKey } from '../../src/modules/gate/plates.js';
import { gateScene, type GateScene } from '../factories/checkin.js';
import { connectDriver, connectTerminal, waitFor } from '../factories/sockets.js';
import { captureClientQueries, captureRoundTrips } from '../setup/statements.js';
import { useTestApp } from '../setup/test-app.js';

/** What a plate read costs in round trips to the database (docs/benchmarks.md, "the gate's read in four round trips"). */
const t = useTestApp({ JWT_SECRET: 'a-test-jwt-secret-of-at-least-32-chars!!' });
let db: DataSource;
let url: string;
let scene: GateScene;
const sockets: Socket[] = [];
let reads = 0;

beforeAll(async () => {
  const { port } = t.app.getHttpServer().address() as { port: number };
  url = `http://127.0.0.1:${port}`;
  db = t.app.get(DataSource);
  scene = await gateScene(t.http);
  sockets.push(
    await connectTerminal(url, scene.terminal.key, () => ({
      accepted: true,
      tickets: [{ layout_ref: 'gate-pass', content: { gate: 'A1' } }],
    })),
  );
});
afterEach(() => {
  for (const socket of sockets.splice(1)) socket.close();
});

const readOf = (plate: string) => ({
  read_id: `cost-${process.pid}-${++reads}`,
  lane: 'in-1',
  stage: 'arrival',
  plate,
  confidence: 0.97,
  read_at: new Date().toISOString(),
});

const post = (plate: string) => {
  const body = readOf(plate);
  return t.http
    .post('/api/v1/gate/reads')
    .set('X-API-Key', scene.terminal.key)
    .send(body)
    .then((res) => ({ res, body }));
};

describe('what one matched plate read costs', () => {
  it('two round trips before the ticket and its answer, as a driver’s check-in; no value in a statement’s text', async () => {
    // The first read of the key and of the statements, not counted.
    await scene.appointment({ license_plate: 'CST1A01' });
    expect((await post('CST1001')).res.body.data[0].outcome).toBe('matched');

    const { id, ref } = await scene.appointment({ license_plate: 'CST1B02' });
    const { socket, events } = await connectDriver(url, scene.token);
    sockets.push(socket);
    let answer: Awaited<ReturnType<typeof post>> | undefined;
    let trips: Awaited<ReturnType<typeof captureRoundTrips>> | undefined;
    const wire = await captureClientQueries(db, async () => {
      trips = await captureRoundTrips(db, async () => (answer = await post('cst-1102')));
    });
    expect(answer!.res.status).toBe(201);
    expect(answer!.res.body.data).toEqual([{ read_id: answer!.body.read_id, outcome: 'matched', appointment_ref: ref }]);
    await waitFor(() => events.some((e) => e.type === 'ticket.created' && (e.data as { appointment_id: string }).appointment_id === id));

    // The read stored, its appointments found and its check-in started, in one statement sent with its transaction's
    // opening and COMMIT; the acceptance with the read's outcome and its event (its statement with the opening and the
    // COMMIT), after which the ticket is pushed.
    expect(trips!.transactions.map((tx) => tx.length)).toEqual([1, 1]);
    expect(trips!.statements).toHaveLength(2);
    expect(wire).toHaveLength(2);
    expect(wire[0]).toMatch(/^START TRANSACTION;\n[^]*INSERT INTO gate_reads[^]*plate_fold = [^]*INSERT INTO checkins[^]*;\nCOMMIT$/);
    expect(wire[1]).toMatch(/^START TRANSACTION;\n[^]*INSERT INTO tickets[^]*UPDATE gate_reads[^]*'gate\.read'[^]*;\nCOMMIT$/);

    const [{ checkin_id: checkinId }]: { checkin_id: string }[] = await db.query(
      `SELECT id AS checkin_id FROM checkins WHERE appointment_id = $1`,
      [id],
    );
    for (const value of [answer!.body.read_id, checkinId, id, ref, scene.terminal.id]) {
      expect(wire.filter((text) => text.includes(value))).toEqual([]);
    }

    // What it wrote is what the read wrote before, in the same order: the read matched, its events.
    const [row]: { outcome: string; appointment_ref: string; instance_id: string | null }[] = await db.query(
      `SELECT outcome, appointment_ref, instance_id FROM gate_reads WHERE read_id = $1`,
      [answer!.body.read_id],
    );
    expect(row).toEqual({ outcome: 'matched', appointment_ref: ref, instance_id: null });
    const written: { type: string; data: Record<string, any> }[] = await db.query(
      `SELECT type, data FROM account_events WHERE account_id = $1 AND (data->'appointment'->>'id' = $2 OR data->>'appointment_id' = $2 OR data->'read'->>'read_id' = $3) ORDER BY seq`,
      [scene.terminal.id, id, answer!.body.read_id],
    );
    expect(written.map((e) => e.type)).toEqual([
      'appointment.created',
      'checkin.requested',
      'appointment.status_changed',
      'ticket.created',
      'gate.read',
    ]);
    expect(written[1].data.checkin).toEqual({ id: checkinId, status: 'pending', reason: null });
    expect(written[4].data.read).toMatchObject({ read_id: answer!.body.read_id, outcome: 'matched', appointment_ref: ref });
    const logs: { event: string; message: string }[] = await db.query(
      `SELECT event, message FROM appointment_logs WHERE appointment_id = $1 ORDER BY id`,
      [id],
    );
    expect(logs.map((l) => l.event)).toEqual(['created', 'checkin_requested', 'checked_in', 'ticket_created']);
    expect(logs[1].message).toBe(`Check-in ${checkinId} requested by the plate read ${answer!.body.read_id}`);
  });

  it('reads that arrive together are stored and started in one statement, one transaction of one round trip', async () => {
    const plates = ['CST2001', 'CST2002', 'CST2003', 'CST2004'];
    for (const plate of plates) await scene.appointment({ license_plate: plate });
    const body = plates.map(readOf);
    let answer: { status: number; body: { data: { outcome: string }[] } } | undefined;
    const trips = await captureRoundTrips(db, async () => {
      answer = await t.http.post('/api/v1/gate/reads').set('X-API-Key', scene.terminal.key).send(body);
    });
    expect(answer!.status).toBe(201);
    expect(answer!.body.data.map((item) => item.outcome)).toEqual(['matched', 'matched', 'matched', 'matched']);
    const stores = trips.transactions.filter((tx) => tx[0].includes('INSERT INTO gate_reads'));
    expect(stores).toHaveLength(1);
    expect(stores[0]).toHaveLength(1);
    expect(stores[0][0].match(/INSERT INTO gate_reads/g)).toHaveLength(1);
    // Each read's check-in started by that statement, and asked once.
    const attempts: { status: string; n: number }[] = await db.query(
      `SELECT c.status, count(*)::int AS n FROM checkins c JOIN appointments a ON a.id = c.appointment_id
        WHERE a.terminal_id = $1 AND a.license_plate = ANY($2::text[]) GROUP BY c.status`,
      [scene.terminal.id, plates],
    );
    expect(attempts).toEqual([{ status: 'accepted', n: plates.length }]);
  });

  it('one appointment read twice in one statement starts one check-in; the other read joins it', async () => {
    const { id, ref } = await scene.appointment({ license_plate: 'CST3001' });
    const res = await t.http
      .post('/api/v1/gate/reads')
      .set('X-API-Key', scene.terminal.key)
      .send([readOf('CST3001'), readOf('cst-3001')]);
    expect(res.status).toBe(201);
    expect(res.body.data.map((item: { outcome: string; appointment_ref: string }) => [item.outcome, item.appointment_ref])).toEqual([
      ['matched', ref],
      ['matched', ref],
    ]);
    const attempts: { status: string }[] = await db.query(`SELECT status FROM checkins WHERE appointment_id = $1`, [id]);
    expect(attempts).toEqual([{ status: 'accepted' }]);
    const [{ tickets }]: { tickets: number }[] = await db.query(`SELECT count(*)::int AS tickets FROM tickets WHERE appointment_id = $1`, [
      id,
    ]);
    expect(tickets).toBe(1);
  });

  it('the appointments of many reads at once are found on the plate indexes, key by key, never by a scan', async () => {
    // Appointments enough that PostgreSQL plans by its statistics, and the keys of 100 reads (each plate and its fold).
    await db.query(
      `INSERT INTO appointments (terminal_id, status, ref, layout_ref, driver_id, window_start, window_end, license_plate, summary)
       SELECT $1, 'SCHEDULED', 'scan-' || n, 'appt', (SELECT id FROM drivers LIMIT 1), now(), now() + interval '1 hour',
              'SCN' || lpad(n::text, 4, '0'), 'Filler'
         FROM generate_series(1, 500) AS n`,
      [scene.terminal.id],
    );
    await db.query('ANALYZE appointments');
    const plates = Array.from({ length: 100 }, (_, i) => `SCN${String(i * 5).padStart(4, '0')}`);
    const [{ 'QUERY PLAN': plan }]: { 'QUERY PLAN': unknown }[] = await db.query(
      `EXPLAIN (FORMAT JSON) ${plateLookupSql('= ANY($1::uuid[])', '$2::text[]', '$3::text[]')}`,
      [[scene.terminal.id], plates.map(plateKey), plates.map(plateFold)],
    );
    const scanned: string[] = [];
    const indexes = new Set<string>();
    const visit = (node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      const step = node as Record<string, unknown>;
      if (step['Node Type'] === 'Seq Scan') scanned.push(String(step['Relation Name']));
      if (typeof step['Index Name'] === 'string') indexes.add(step['Index Name']);
      Object.values(step).forEach((value) => (Array.isArray(value) ? value.forEach(visit) : visit(value)));
    };
    visit(plan);
    expect(scanned.filter((relation) => relation === 'appointments')).toEqual([]);
    expect([...indexes].sort()).toEqual(expect.arrayContaining(['appointments_plate_fold_idx', 'appointments_plate_idx']));
  });
});
