import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { FirstStatement } from '../../database/prepared.js';
import { PLATE_LOOKUP_LIMIT, PLATE_LOOKUP_ORDER, plateLookupSql } from '../appointments/appointments.definition.js';
import type { Param, PlateAttempt, PlateStartSql, ReadsDecidedSql } from '../checkin/plate-start.js';
import type { EventSource } from '../events/account-events.js';
import { CURRENT_TX, INSERT_EVENTS, isoSql } from '../events/event-sql.js';
import { admissibleAtSql, type RecordRow } from '../records/record-definition.js';
import type { ReferralReason } from './matching.js';

/** The path a read's image is served at (docs/gate.md#images). */
export const IMAGE_PATH = '/api/v1/gate/reads/';

/** SQL of a read (alias `g`) as the API shows it, as jsonb: the data of `gate.read` events, and in its referral. */
const readViewSql = (g: string) =>
  `jsonb_build_object('read_id', ${g}.read_id, 'lane', ${g}.lane, 'stage', ${g}.stage, 'plate', ${g}.plate,
     'confidence', ${g}.confidence, 'candidates', ${g}.candidates, 'read_at', ${isoSql(`${g}.read_at`)},
     'outcome', ${g}.outcome, 'appointment_ref', ${g}.appointment_ref,
     'referral_id', (SELECT r.id FROM gate_referrals r WHERE r.read_id = ${g}.id),
     'image', CASE WHEN ${g}.image_type IS NULL THEN NULL
                   ELSE jsonb_build_object('content_type', ${g}.image_type, 'url', '${IMAGE_PATH}' || ${g}.read_id || '/image') END,
     'created_at', ${isoSql(`${g}.created_at`)}, 'updated_at', ${isoSql(`${g}.updated_at`)})`;

/** The SET list of a read matched to the appointment these expressions name, and decided: no instance acts on it. */
const matchedTo = (appointmentId: string, appointmentRef: string) =>
  `outcome = 'matched', appointment_id = ${appointmentId}, appointment_ref = ${appointmentRef}, instance_id = NULL, updated_at = now()`;

/** A referral's status as the API shows it: an open one past its expiry is `expired`. */
const statusSql = (rf: string) => `CASE WHEN ${rf}.status = 'open' AND ${rf}.expires_at <= now() THEN 'expired' ELSE ${rf}.status END`;

/** SQL of a referral (alias `rf`) with its read (`g`) as the API shows it, as jsonb. */
const referralViewSql = (rf: string, g: string) =>
  `jsonb_build_object('id', ${rf}.id, 'status', ${statusSql(rf)}, 'reason', ${rf}.reason, 'detail', ${rf}.detail,
     'read', ${readViewSql(g)}, 'candidates', ${rf}.candidates,
     'created_at', ${isoSql(`${rf}.created_at`)}, 'expires_at', ${isoSql(`${rf}.expires_at`)},
     'resolved_at', CASE WHEN ${rf}.resolved_at IS NULL THEN NULL ELSE ${isoSql(`${rf}.resolved_at`)} END,
     'resolution', CASE WHEN ${rf}.resolution IS NULL THEN NULL
                        ELSE jsonb_build_object('outcome', ${rf}.resolution, 'appointment_ref', ${rf}.appointment_ref, 'note', ${rf}.note) END)`;

/** Where `gate.read` events read their data: `{read}` (docs/events.md). */
export const READ_EVENTS: EventSource = {
  join: 'JOIN gate_reads g ON g.id = ev.id',
  view: `jsonb_build_object('read', ${readViewSql('g')})`,
};

/** Where `gate.referral_opened` and `gate.referral_resolved` events read their data: `{referral}`. */
export const REFERRAL_EVENTS: EventSource = {
  join: 'JOIN gate_referrals rf ON rf.id = ev.id JOIN gate_reads g ON g.id = rf.read_id',
  view: `jsonb_build_object('referral', ${referralViewSql('rf', 'g')})`,
};

/** A read as stored, to act on it or answer it. */
export interface StoredRead {
  id: string;
  inserted: boolean;
  outcome: 'matched' | 'referred' | null;
  instance_id: string | null;
  appointment_ref: string | null;
  referral_id: string | null;
  updated_at: Date;
}

export interface NewRead {
  id: string;
  terminalId: string;
  readId: string;
  lane: string;
  stage: string;
  plate: string;
  confidence: number;
  candidates: { plate: string; confidence: number }[];
  readAt: string;
  image: Buffer | null;
  imageType: string | null;
  instanceId: string;
}

/** An appointment a read's plates found (`plateLookupSql`), with its terminal's gate geofence (for its check-in). */
export type FoundAppointment = RecordRow & { license_plate: string | null; terminal_location: unknown };

/** A new read to store and act on (`storeAndStart`): its keys as the matching makes them, and its check-in if it starts one. */
export interface ReadToStore {
  read: NewRead;
  /** Each reading's key (the plate's and each candidate's) and confidence. */
  readings: { key: string; confidence: number }[];
  keys: string[];
  folds: string[];
  /** The moment the appointments' windows are matched at (read_at, as the matching reads it). */
  matchedAt: Date;
  /** Whether its stage checks a SCHEDULED appointment in. */
  handshake: boolean;
  attempt: PlateAttempt;
}

/** What `storeAndStart` did of a read: whether it stored it, what its plates found, the check-in it started. */
export interface StoredAndStarted {
  stored: boolean;
  found: FoundAppointment[];
  started: { checkinId: string; appointmentId: string } | null;
}

/** A referral with what resolving it needs of its read. */
export interface ReferralRow {
  id: string;
  status: 'open' | 'resolved' | 'expired';
  resolving_instance: string | null;
  resolving_since: Date | null;
  read_row_id: string;
  read_id: string;
  lane: string;
  stage: string;
  plate: string;
  confidence: number;
  read_at: Date;
}

export type ReferralStatus = 'open' | 'resolved' | 'expired';

/** The gate's SQL: reads, their images, and referrals (docs/gate.md). */
@Injectable()
export class GateRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Stores a read, or updates the one with its read_id (the camera read the passage again, or retried): one
   * statement, so the same read_id sent at once to two instances is stored once and acted on by the one that
   * inserted it. The image is kept when the update sends none.
   */
  async upsert(manager: EntityManager, read: NewRead): Promise<StoredRead> {
    const [row]: StoredRead[] = await manager.query(
      `INSERT INTO gate_reads AS g (id, terminal_id, read_id, lane, stage, plate, confidence, candidates, read_at, image, image_type, instance_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::timestamptz, $10, $11, $12)
       ON CONFLICT (terminal_id, read_id) DO UPDATE
          SET lane = EXCLUDED.lane, stage = EXCLUDED.stage, plate = EXCLUDED.plate, confidence = EXCLUDED.confidence,
              candidates = EXCLUDED.candidates, read_at = EXCLUDED.read_at,
              image = COALESCE(EXCLUDED.image, g.image), image_type = COALESCE(EXCLUDED.image_type, g.image_type), updated_at = now()
       RETURNING g.id, (g.xmax = 0) AS inserted, g.outcome, g.instance_id, g.appointment_ref, g.updated_at,
                 (SELECT r.id FROM gate_referrals r WHERE r.read_id = g.id) AS referral_id`,
      [
        read.id,
        read.terminalId,
        read.readId,
        read.lane,
        read.stage,
        read.plate,
        read.confidence,
        JSON.stringify(read.candidates),
        read.readAt,
        read.image,
        read.imageType,
        read.instanceId,
      ],
    );
    return row;
  }

  /**
   * New reads, however many, stored, matched and acted on in one statement, the first of a transaction sent with its
   * opening and COMMIT (one round trip): each read inserted, unless its read_id is known (then nothing else is done
   * for it: a re-read or a retry takes `upsert`); the appointments its readings find (`plateLookupSql`, for all the
   * reads at once, the first PLATE_LOOKUP_LIMIT of each); and, when exactly one eligible appointment matches it exactly
   * with a confidence of at least `autoConfidence`, is SCHEDULED, its stage checks it in (`handshake`) and no attempt
   * is pending on it, its check-in started (`start`: the check-in module's CTEs; one per appointment, the first read's).
   * The matching (`matchRead`) then decides on the rows found, as for any read: the statement starts a check-in only
   * where it matches, so the handshake runs at once. One result per read, in order.
   */
  storeAndStart(reads: ReadToStore[], autoConfidence: number, start: PlateStartSql): FirstStatement<StoredAndStarted[]> {
    const input = reads.map(({ read, readings, folds, matchedAt, handshake, attempt }, ord) => ({
      ord,
      id: read.id,
      terminal_id: read.terminalId,
      read_id: read.readId,
      lane: read.lane,
      stage: read.stage,
      plate: read.plate,
      confidence: read.confidence,
      candidates: read.candidates,
      read_at: read.readAt,
      image: read.image?.toString('base64') ?? null,
      image_type: read.imageType,
      instance_id: read.instanceId,
      reading_keys: readings.map((r) => r.key),
      reading_confidences: readings.map((r) => r.confidence),
      folds,
      matched_at: matchedAt.toISOString(),
      handshake,
      // The read and its check-in are acted on by the same instance (instance_id).
      checkin_id: attempt.checkin_id,
      message: attempt.message,
      data: attempt.data,
      checkin: attempt.checkin,
    }));
    const values: unknown[] = [];
    const param: Param = (value, type) => `$${values.push(value)}::${type}`;
    // The appointments are looked up for all the reads at once (`looked_up`, materialized: planned on its own, on the
    // plate indexes), then shared out to the reads they match (`found`) by their keys (`plate_key`, `plate_fold`).
    const text = `WITH input AS (
         SELECT * FROM jsonb_to_recordset(${param(JSON.stringify(input), 'jsonb')}) AS x(ord int, id uuid, terminal_id uuid, read_id text,
                lane text, stage text, plate text, confidence float8, candidates jsonb, read_at timestamptz, image text, image_type text,
                instance_id uuid, reading_keys text[], reading_confidences float8[], folds text[], matched_at timestamptz, handshake boolean,
                checkin_id uuid, message text, data jsonb, checkin jsonb)
       ), stored AS (
         INSERT INTO gate_reads (id, terminal_id, read_id, lane, stage, plate, confidence, candidates, read_at, image, image_type, instance_id)
         SELECT id, terminal_id, read_id, lane, stage, plate, confidence, candidates, read_at, decode(image, 'base64'), image_type, instance_id
           FROM input ORDER BY ord
         ON CONFLICT (terminal_id, read_id) DO NOTHING
         RETURNING id
       ), looked_up AS MATERIALIZED (${plateLookupSql(
         `= ANY(${param([...new Set(reads.map((r) => r.read.terminalId))], 'uuid[]')})`,
         param([...new Set(reads.flatMap((r) => r.keys))], 'text[]'),
         param([...new Set(reads.flatMap((r) => r.folds))], 'text[]'),
       )}), found AS (
         SELECT * FROM (
           SELECT x.ord AS read_ord, l.*, row_number() OVER (PARTITION BY x.ord ORDER BY ${PLATE_LOOKUP_ORDER('l')}) AS read_rank
             FROM input x JOIN stored s ON s.id = x.id
             JOIN looked_up l ON l.terminal_id = x.terminal_id
              AND (l.plate_key = ANY(x.reading_keys) OR l.plate_fold = ANY(x.folds))
         ) f WHERE f.read_rank <= ${PLATE_LOOKUP_LIMIT}
       ), exact AS (
         SELECT f.read_ord, f.id, f.status,
                (SELECT max(r.confidence) FROM unnest(x.reading_keys, x.reading_confidences) AS r(key, confidence)
                  WHERE r.key = f.plate_key) AS confidence
           FROM found f JOIN input x ON x.ord = f.read_ord
          WHERE f.plate_key = ANY(x.reading_keys) AND ${admissibleAtSql('f', 'x.matched_at')}
       ), chosen AS (
         SELECT DISTINCT ON (e.id) e.id, x.ord, x.checkin_id, x.instance_id, x.message, x.data, x.checkin
           FROM exact e JOIN input x ON x.ord = e.read_ord
          WHERE x.handshake AND e.status = 'SCHEDULED' AND e.confidence >= ${param(autoConfidence, 'float8')}
            AND (SELECT count(*) FROM exact o WHERE o.read_ord = e.read_ord) = 1
            AND NOT EXISTS (SELECT 1 FROM checkins c WHERE c.appointment_id = e.id AND c.status = 'pending')
          ORDER BY e.id, x.ord
       ), ${start('chosen', param)}
       SELECT x.ord AS input_ord, s.id AS stored_id, c.id AS started_checkin_id, c.appointment_id AS started_appointment_id, f.*,
              t.location AS terminal_location
         FROM input x LEFT JOIN stored s ON s.id = x.id LEFT JOIN started c ON c.id = x.checkin_id
         LEFT JOIN found f ON f.read_ord = x.ord LEFT JOIN accounts t ON t.id = f.terminal_id
        ORDER BY x.ord, f.read_rank`;
    return {
      text,
      values,
      // Its lookup's plan depends on the plates: a plan made once for any (a named statement's, after five runs) scans
      // the terminal's appointments.
      planEachTime: true,
      read: (rows) => {
        type Row = FoundAppointment & {
          input_ord: number;
          stored_id: string | null;
          started_checkin_id: string | null;
          started_appointment_id: string | null;
          read_ord: number | null;
          read_rank: string | null;
          plate_key: string | null;
          plate_fold: string | null;
        };
        const results: StoredAndStarted[] = reads.map(() => ({ stored: false, found: [], started: null }));
        for (const {
          input_ord,
          stored_id,
          started_checkin_id,
          started_appointment_id,
          read_ord: _,
          read_rank: __,
          plate_key: ___,
          plate_fold: ____,
          ...row
        } of rows as Row[]) {
          const result = results[input_ord];
          result.stored = stored_id !== null;
          if (started_checkin_id) result.started = { checkinId: started_checkin_id, appointmentId: started_appointment_id! };
          if (row.id !== null) result.found.push(row);
        }
        return results;
      },
    };
  }

  /**
   * Reads matched whose outcome is written with their check-in's acceptance, in its statement: each read's outcome
   * and the appointment the acceptance moved, and its `gate.read` event (after the acceptance's own). The reads are
   * found by their ids, as an array (on the primary key), not by a join the planner might make a scan of.
   */
  readonly readsDecided: ReadsDecidedSql = {
    decide: (input, moved) => `UPDATE gate_reads AS g SET ${matchedTo('m.id', 'm.ref')}
           FROM ${input} x JOIN ${moved} m ON m.c_ord = x.ord
          WHERE g.id = ANY(ARRAY(SELECT r.read_row_id FROM ${input} r WHERE r.read_row_id IS NOT NULL)) AND g.id = x.read_row_id
         RETURNING g.*, x.ord AS c_ord`,
    event: { account: 'g.terminal_id', type: 'gate.read', data: READ_EVENTS.view! },
  };

  /**
   * Reads matched, however many: each read's outcome and appointment, and its `gate.read` event, in one statement,
   * the whole of a transaction sent with its opening and COMMIT; the events in the order given.
   */
  matchedMany(reads: { id: string; appointment: { id: string; ref: string } }[]): FirstStatement<void> {
    return {
      text: `WITH decided AS (
           UPDATE gate_reads AS g SET ${matchedTo('x.appointment_id', 'x.appointment_ref')}
             FROM unnest($1::uuid[], $2::uuid[], $3::text[]) WITH ORDINALITY AS x(id, appointment_id, appointment_ref, ord)
            WHERE g.id = x.id
           RETURNING g.*, x.ord
         )
         ${INSERT_EVENTS}
         SELECT g.terminal_id, ${CURRENT_TX}, 'gate.read', ${READ_EVENTS.view!} FROM decided g ORDER BY g.ord`,
      values: [reads.map((r) => r.id), reads.map((r) => r.appointment.id), reads.map((r) => r.appointment.ref)],
      read: () => undefined,
    };
  }

  async findRead(id: string): Promise<StoredRead | null> {
    const rows: StoredRead[] = await this.db.query(
      `SELECT g.id, false AS inserted, g.outcome, g.instance_id, g.appointment_ref, g.updated_at,
              (SELECT r.id FROM gate_referrals r WHERE r.read_id = g.id) AS referral_id
         FROM gate_reads g WHERE g.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Makes `instanceId` the one acting on a read still undecided whose instance was `from` (gone); whether it did. */
  async takeOver(id: string, instanceId: string, from: string | null): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `WITH taken AS (
         UPDATE gate_reads SET instance_id = $2 WHERE id = $1 AND outcome IS NULL AND instance_id IS NOT DISTINCT FROM $3 RETURNING id
       ) SELECT id FROM taken`,
      [id, instanceId, from],
    );
    return rows.length > 0;
  }

  /** Lets go of a read this instance could not finish (a retry takes it over). */
  async release(id: string, instanceId: string): Promise<void> {
    await this.db.query(`UPDATE gate_reads SET instance_id = NULL WHERE id = $1 AND outcome IS NULL AND instance_id = $2`, [
      id,
      instanceId,
    ]);
  }

  /** The read's outcome, and the appointment it matched. */
  async decide(
    manager: EntityManager,
    id: string,
    outcome: 'matched' | 'referred',
    appointment: { id: string; ref: string } | null,
  ): Promise<void> {
    await manager.query(
      `UPDATE gate_reads SET outcome = $2, appointment_id = $3, appointment_ref = $4, instance_id = NULL, updated_at = now() WHERE id = $1`,
      [id, outcome, appointment?.id ?? null, appointment?.ref ?? null],
    );
  }

  /** The appointment that resolved a read's referral. */
  async setAppointment(manager: EntityManager, id: string, appointment: { id: string; ref: string }): Promise<void> {
    await manager.query(`UPDATE gate_reads SET appointment_id = $2, appointment_ref = $3, updated_at = now() WHERE id = $1`, [
      id,
      appointment.id,
      appointment.ref,
    ]);
  }

  /** Opens a referral of a read, expiring 24 hours from now. */
  async insertReferral(
    manager: EntityManager,
    referral: { id: string; terminalId: string; readRowId: string; reason: ReferralReason; candidates: unknown[]; detail: string | null },
  ): Promise<void> {
    await manager.query(
      `INSERT INTO gate_referrals (id, terminal_id, read_id, reason, candidates, detail, expires_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, now() + interval '24 hours')`,
      [referral.id, referral.terminalId, referral.readRowId, referral.reason, JSON.stringify(referral.candidates), referral.detail],
    );
  }

  /** A referral of the terminal, with its read. */
  async findReferral(terminalId: string, id: string): Promise<ReferralRow | null> {
    const rows: ReferralRow[] = await this.db.query(
      `SELECT rf.id, ${statusSql('rf')} AS status, rf.resolving_instance, rf.resolving_since,
              g.id AS read_row_id, g.read_id, g.lane, g.stage, g.plate, g.confidence, g.read_at
         FROM gate_referrals rf JOIN gate_reads g ON g.id = rf.read_id
        WHERE rf.terminal_id = $1 AND rf.id = $2`,
      [terminalId, id],
    );
    return rows[0] ?? null;
  }

  /**
   * Makes this instance the one resolving an open referral, unless another is (`from`: the one found resolving it,
   * gone or stale, to take over from); whether it did.
   */
  async claim(id: string, instanceId: string, from: string | null): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `WITH claimed AS (
         UPDATE gate_referrals SET resolving_instance = $2, resolving_since = now()
          WHERE id = $1 AND status = 'open' AND expires_at > now() AND resolving_instance IS NOT DISTINCT FROM $3
         RETURNING id
       ) SELECT id FROM claimed`,
      [id, instanceId, from],
    );
    return rows.length > 0;
  }

  /** Lets go of a referral this instance did not close (its resolution failed: it stays open). */
  async unclaim(id: string, instanceId: string): Promise<void> {
    await this.db.query(
      `UPDATE gate_referrals SET resolving_instance = NULL, resolving_since = NULL WHERE id = $1 AND resolving_instance = $2`,
      [id, instanceId],
    );
  }

  /** Closes a referral this instance holds; whether it did (it was open, and still held by this instance). */
  async resolve(
    manager: EntityManager,
    id: string,
    instanceId: string,
    resolution: { outcome: 'matched' | 'rejected'; appointment: { id: string; ref: string } | null; note: string | null },
  ): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `WITH closed AS (
         UPDATE gate_referrals SET status = 'resolved', resolution = $3, appointment_id = $4, appointment_ref = $5, note = $6,
                resolved_at = now(), resolving_instance = NULL, resolving_since = NULL, updated_at = now()
          WHERE id = $1 AND status = 'open' AND resolving_instance = $2
         RETURNING id
       ) SELECT id FROM closed`,
      [id, instanceId, resolution.outcome, resolution.appointment?.id ?? null, resolution.appointment?.ref ?? null, resolution.note],
    );
    return rows.length > 0;
  }

  /** A referral as the API shows it. */
  async referralView(id: string): Promise<Record<string, unknown>> {
    const [row]: { view: Record<string, unknown> }[] = await this.db.query(
      `SELECT ${referralViewSql('rf', 'g')} AS view FROM gate_referrals rf JOIN gate_reads g ON g.id = rf.read_id WHERE rf.id = $1`,
      [id],
    );
    return row.view;
  }

  /**
   * A page of the terminal's referrals of a status, newest first, after the one of `after` (its created_at with
   * microseconds, and id); `limit + 1` rows, each with its `list_key`.
   */
  listReferrals(
    terminalId: string,
    status: ReferralStatus,
    limit: number,
    after: { key: string; id: string } | null,
  ): Promise<{ view: Record<string, unknown>; list_key: string; id: string }[]> {
    const where = {
      open: `rf.status = 'open' AND rf.expires_at > now()`,
      expired: `rf.status = 'open' AND rf.expires_at <= now()`,
      resolved: `rf.status = 'resolved'`,
    }[status];
    const params: unknown[] = [terminalId, limit + 1];
    const page = after ? `AND (rf.created_at, rf.id) < ($${params.push(after.key)}::timestamptz, $${params.push(after.id)}::uuid)` : '';
    return this.db.query(
      `SELECT rf.id, ${referralViewSql('rf', 'g')} AS view,
              to_char(rf.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS list_key
         FROM gate_referrals rf JOIN gate_reads g ON g.id = rf.read_id
        WHERE rf.terminal_id = $1 AND ${where} ${page}
        ORDER BY rf.created_at DESC, rf.id DESC
        LIMIT $2`,
      params,
    );
  }

  /** A read's image, when it is kept. */
  async image(terminalId: string, readId: string): Promise<{ image: Buffer; image_type: string } | null> {
    const rows: { image: Buffer; image_type: string }[] = await this.db.query(
      `SELECT image, image_type FROM gate_reads WHERE terminal_id = $1 AND read_id = $2 AND image IS NOT NULL`,
      [terminalId, readId],
    );
    return rows[0] ?? null;
  }

  /** Clears up to `limit` images kept longer than `days`; answers how many. */
  async purgeImages(days: number, limit: number): Promise<number> {
    const rows: unknown[] = await this.db.query(
      `WITH cleared AS (
         UPDATE gate_reads SET image = NULL, image_type = NULL
          WHERE id IN (SELECT id FROM gate_reads WHERE image IS NOT NULL AND created_at < now() - make_interval(days => $1) LIMIT $2)
         RETURNING id
       ) SELECT id FROM cleared`,
      [days, limit],
    );
    return rows.length;
  }
}
