import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the audit trail records of each table (docs/audit.md#what-is-recorded): the resource its entries name, the
 * columns naming the accounts an entry goes to (a column of the row, or `user:` the account of the row's user), the
 * columns of its key, the column of its `ref`, the columns whose values never appear (a change to them shows as
 * "[withheld]"), and the columns whose changes are not recorded (the service's bookkeeping).
 */
const TABLES: { table: string; resource: string; accounts: string; keys: string; ref: string; withheld: string[]; ignored: string[] }[] = [
  { table: 'accounts', resource: 'account', accounts: 'id', keys: 'id', ref: 'name', withheld: [], ignored: [] },
  {
    table: 'account_sso',
    resource: 'sso',
    accounts: 'account_id',
    keys: 'account_id',
    ref: 'issuer',
    withheld: ['client_secret'],
    ignored: [],
  },
  {
    table: 'api_keys',
    resource: 'api_key',
    accounts: 'account_id',
    keys: 'id',
    ref: 'name',
    withheld: ['key_hash'],
    ignored: ['last_used_at'],
  },
  {
    table: 'users',
    resource: 'user',
    accounts: 'account_id',
    keys: 'id',
    ref: 'email',
    withheld: ['password_hash', 'mfa_secret', 'recovery_codes'],
    ignored: ['last_sign_in_at'],
  },
  { table: 'invitations', resource: 'invitation', accounts: 'user:user_id', keys: 'id', ref: '', withheld: ['token_hash'], ignored: [] },
  { table: 'sessions', resource: 'session', accounts: 'user:user_id', keys: 'id', ref: '', withheld: ['token_hash'], ignored: [] },
  { table: 'trips', resource: 'trip', accounts: 'trucking_company_id', keys: 'id', ref: 'ref', withheld: [], ignored: [] },
  {
    table: 'appointments',
    resource: 'appointment',
    accounts: 'terminal_id,booked_by_id',
    keys: 'id',
    ref: 'ref',
    withheld: [],
    // The reports' bookkeeping (the wait to the first ticket, set with the check-in: docs/reports.md).
    ignored: ['plate_checkin_id', 'ticket_wait_seconds'],
  },
  { table: 'tickets', resource: 'ticket', accounts: 'terminal_id', keys: 'id', ref: 'layout_ref', withheld: [], ignored: [] },
  { table: 'checkins', resource: 'checkin', accounts: 'terminal_id', keys: 'id', ref: '', withheld: [], ignored: ['instance_id'] },
  { table: 'layouts', resource: 'layout', accounts: 'owner_id', keys: 'id', ref: 'ref', withheld: [], ignored: [] },
  { table: 'capacity_rules', resource: 'capacity_rule', accounts: 'terminal_id', keys: 'id', ref: 'ref', withheld: [], ignored: [] },
  {
    table: 'webhooks',
    resource: 'webhook',
    accounts: 'account_id',
    keys: 'id',
    ref: 'description',
    withheld: ['secret', 'previous_secret'],
    ignored: ['cursor_tx', 'cursor_seq', 'failing_since', 'slow'],
  },
  {
    table: 'driver_token_grants',
    resource: 'driver_tokens',
    accounts: 'account_id',
    keys: 'driver_id,account_id',
    ref: '',
    withheld: [],
    ignored: [],
  },
  {
    table: 'driver_sign_in_codes',
    resource: 'sign_in_code',
    accounts: 'account_id',
    keys: 'code_digest',
    ref: '',
    withheld: ['code_digest'],
    ignored: [],
  },
  {
    table: 'gate_reads',
    resource: 'gate_read',
    accounts: 'terminal_id',
    keys: 'id',
    ref: 'read_id',
    withheld: [],
    ignored: ['image', 'instance_id'],
  },
  {
    table: 'gate_referrals',
    resource: 'gate_referral',
    accounts: 'terminal_id',
    keys: 'id',
    ref: 'appointment_ref',
    withheld: [],
    ignored: ['resolving_instance', 'resolving_since'],
  },
];

/** Bookkeeping every table has: never recorded as a change. */
const ALWAYS_IGNORED = ['created_at', 'updated_at'];

const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** Each side's rows as JSON with their key, computed once per row (one column: the column's value, as audit_key gives it). */
const keyed = (rows: string) =>
  `(SELECT j, CASE WHEN cardinality(keys) = 1 THEN j->>keys[1] ELSE audit_key(j, keys) END AS k
      FROM (SELECT to_jsonb(x) AS j FROM ${rows} x OFFSET 0) x)`;

/**
 * The entries of an UPDATE statement: each row turned into JSON and keyed once, the two sides joined on the key, the
 * changes aggregated over the new row's fields in the statement itself, and the action from audit_update_action over
 * the joined rows as columns (OFFSET 0 keeps them columns, so that the function is inlined rather than called once per
 * row). Measured in docs/benchmarks.md#the-audit-trail-2026-11-29.
 */
const UPDATE_ENTRIES = `INSERT INTO audit_entries (account_id, actor, action, target, changes, request_id, ip, user_agent)
       SELECT a.account_id, scope->'actor', audit_update_action(resource, r.o, r.n),
              jsonb_build_object('type', resource, 'id', r.n->>keys[1], 'ref', r.n->>ref), r.changes,
              scope->>'request_id', scope->>'ip', scope->>'user_agent'
         FROM (SELECT o.j AS o, n.j AS n, c.changes
                 FROM ${keyed('old_rows')} o
                 JOIN ${keyed('new_rows')} n ON o.k = n.k
                 CROSS JOIN LATERAL (
                   SELECT jsonb_object_agg(e.key, CASE WHEN e.key = ANY (withheld) THEN '["[withheld]", "[withheld]"]'::jsonb
                                                       ELSE jsonb_build_array(o.j->e.key, e.value) END) AS changes
                     FROM jsonb_each(n.j) e
                    WHERE NOT (e.key = ANY (ignored)) AND o.j->e.key IS DISTINCT FROM e.value
                 ) c
                WHERE c.changes IS NOT NULL
               OFFSET 0) r
         CROSS JOIN LATERAL audit_accounts(r.n, accounts) a;`;

/**
 * The audit trigger function: the entries of one statement's rows in one INSERT … SELECT over its transition tables.
 * ` OFFSET 0` in the subqueries of rows as JSON keeps each row's `to_jsonb` computed once, not again for every use of it
 * (its key, its ref, each account column).
 */
const AUDIT_ROWS = `CREATE FUNCTION audit_rows() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     resource text := TG_ARGV[0];
     accounts text[] := string_to_array(TG_ARGV[1], ',');
     keys text[] := string_to_array(TG_ARGV[2], ',');
     ref text := NULLIF(TG_ARGV[3], '');
     withheld text[] := TG_ARGV[4]::text[];
     ignored text[] := TG_ARGV[5]::text[];
     scope jsonb := audit_scope();
   BEGIN
     IF TG_OP = 'UPDATE' THEN
       ${UPDATE_ENTRIES}
     ELSIF TG_OP = 'INSERT' THEN
       INSERT INTO audit_entries (account_id, actor, action, target, request_id, ip, user_agent)
       SELECT a.account_id, s.v->'actor', resource || '.created', jsonb_build_object('type', resource, 'id', r.j->>keys[1], 'ref', r.j->>ref),
              s.v->>'request_id', s.v->>'ip', s.v->>'user_agent'
         FROM (SELECT to_jsonb(n) AS j FROM new_rows n OFFSET 0) r
         CROSS JOIN LATERAL (SELECT CASE WHEN scope ? 'rows' THEN audit_row_scope(scope, r.j->>ref) ELSE scope END AS v) s
         CROSS JOIN LATERAL audit_accounts(r.j, accounts) a;
     ELSE
       INSERT INTO audit_entries (account_id, actor, action, target, request_id, ip, user_agent)
       SELECT a.account_id, scope->'actor', resource || '.deleted', jsonb_build_object('type', resource, 'id', r.j->>keys[1], 'ref', r.j->>ref),
              scope->>'request_id', scope->>'ip', scope->>'user_agent'
         FROM (SELECT to_jsonb(o) AS j FROM old_rows o OFFSET 0) r CROSS JOIN LATERAL audit_accounts(r.j, accounts) a;
     END IF;
     RETURN NULL;
   END $$`;

/**
 * The audit trail (docs/audit.md): every change to the tables above writes its entries in its own statement, by
 * statement-level triggers over the transition tables (one INSERT … SELECT per statement, however many rows), with
 * the actor, request id, address and user agent of the transaction's audit scope (`gate.audit`, set by the service
 * at every transaction's opening). Entries are written unsealed (no seq, no hash); the sealer numbers and chains
 * them per account just after commit. The logs of trips and appointments gain the actor of each entry.
 */
export class Audit1763940000000 implements MigrationInterface {
  name = 'Audit1763940000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE TABLE audit_entries (
         id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
         account_id uuid,
         written bigint GENERATED ALWAYS AS IDENTITY,
         seq bigint,
         at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
         actor jsonb NOT NULL,
         action text NOT NULL,
         target jsonb NOT NULL,
         changes jsonb,
         request_id text,
         ip text,
         user_agent text,
         hash text
       )`,
    );
    await db.query(`CREATE UNIQUE INDEX audit_entries_seq ON audit_entries (account_id, seq) NULLS NOT DISTINCT WHERE seq IS NOT NULL`);
    await db.query(`CREATE INDEX audit_entries_unsealed ON audit_entries (account_id, written) WHERE seq IS NULL`);
    await db.query(`CREATE INDEX audit_entries_at ON audit_entries (account_id, at)`);
    await db.query(`CREATE INDEX audit_entries_actor ON audit_entries (account_id, (actor->>'id'), seq)`);
    await db.query(`CREATE INDEX audit_entries_target_ref ON audit_entries (account_id, (target->>'ref'), seq)`);
    // Where an account's chain continues after its oldest entries were purged: the last purged entry's seq and hash.
    await db.query(
      `CREATE TABLE audit_anchors (account_id uuid, seq bigint NOT NULL, hash text NOT NULL, purged_at timestamptz NOT NULL DEFAULT now())`,
    );
    await db.query(`CREATE UNIQUE INDEX audit_anchors_account ON audit_anchors (account_id) NULLS NOT DISTINCT`);

    // The action of an update: what changed, in the words of the resource (docs/audit.md#actions).
    await db.query(
      `CREATE FUNCTION audit_update_action(resource text, o jsonb, n jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
         SELECT resource || '.' || CASE
           WHEN resource IN ('appointment', 'trip') AND o->'status' IS DISTINCT FROM n->'status'
             THEN CASE WHEN n->>'status' = 'DELETED' THEN 'deleted' ELSE 'status_changed' END
           WHEN resource = 'appointment' AND o->'no_show_at' = 'null' AND n->'no_show_at' <> 'null' THEN 'no_show'
           WHEN resource = 'appointment' AND o->'arrived_at' = 'null' AND n->'arrived_at' <> 'null' THEN 'arrived'
           WHEN resource = 'appointment' AND o->'entered_at' = 'null' AND n->'entered_at' <> 'null' THEN 'entered'
           WHEN resource = 'appointment' AND o->'departed_at' = 'null' AND n->'departed_at' <> 'null' THEN 'departed'
           WHEN resource = 'user' AND o->'role' IS DISTINCT FROM n->'role' THEN 'role_changed'
           WHEN resource = 'user' AND o->'status' IS DISTINCT FROM n->'status'
             THEN CASE WHEN n->>'status' <> 'active' THEN lower(n->>'status') WHEN o->>'status' = 'invited' THEN 'activated' ELSE 'reactivated' END
           WHEN resource = 'user' AND o->'password_hash' IS DISTINCT FROM n->'password_hash' THEN 'password_changed'
           WHEN resource = 'user' AND o->'mfa_enabled' IS DISTINCT FROM n->'mfa_enabled'
             THEN CASE WHEN (n->>'mfa_enabled')::boolean THEN 'mfa_enabled' ELSE 'mfa_disabled' END
           WHEN resource = 'api_key' AND o->'revoked_at' = 'null' AND n->'revoked_at' <> 'null' THEN 'revoked'
           WHEN resource = 'webhook' AND o->'enabled' IS DISTINCT FROM n->'enabled'
             THEN CASE WHEN (n->>'enabled')::boolean THEN 'enabled' ELSE 'disabled' END
           WHEN resource = 'session' AND o->'ended_at' = 'null' AND n->'ended_at' <> 'null' THEN 'ended'
           WHEN resource = 'invitation' AND o->'used_at' = 'null' AND n->'used_at' <> 'null' THEN 'accepted'
           WHEN resource = 'driver_tokens' AND o->'generation' IS DISTINCT FROM n->'generation' THEN 'revoked'
           WHEN resource IN ('checkin', 'gate_referral', 'gate_read') AND o->'status' IS DISTINCT FROM n->'status'
             THEN lower(n->>'status')
           WHEN resource = 'gate_read' AND o->'outcome' IS DISTINCT FROM n->'outcome' THEN lower(n->>'outcome')
           ELSE 'updated'
         END
       $$`,
    );
    // An actor as the trail names it: an account key by its label, a terminal by its account's name, as they are now.
    await db.query(
      `CREATE FUNCTION audit_named(actor jsonb) RETURNS jsonb LANGUAGE sql STABLE AS $$
         SELECT CASE
           WHEN actor->>'name' IS NOT NULL OR NOT (actor->>'id' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$') THEN actor
           WHEN actor->>'type' = 'api_key'
             THEN jsonb_set(actor, '{name}', COALESCE((SELECT to_jsonb(name) FROM api_keys WHERE id = (actor->>'id')::uuid), 'null'))
           WHEN actor->>'type' = 'terminal'
             THEN jsonb_set(actor, '{name}', COALESCE((SELECT to_jsonb(name) FROM accounts WHERE id = (actor->>'id')::uuid), 'null'))
           ELSE actor
         END
       $$`,
    );
    // The audit scope of the running transaction (its actor named, its request, address and user agent); creates of
    // several requests written together carry each one's scope under "rows", by ref.
    await db.query(
      `CREATE FUNCTION audit_scope() RETURNS jsonb LANGUAGE sql STABLE AS $$
         SELECT jsonb_set(s, '{actor}', audit_named(s->'actor'))
           FROM COALESCE(NULLIF(current_setting('gate.audit', true), '')::jsonb,
                         '{"actor": {"type": "system", "id": null, "name": null}}'::jsonb) s
       $$`,
    );
    // The scope of the row of this ref: its own request's when several were written together, else the transaction's.
    await db.query(
      `CREATE FUNCTION audit_row_scope(scope jsonb, ref text) RETURNS jsonb LANGUAGE sql STABLE AS $$
         SELECT CASE WHEN scope->'rows'->ref IS NULL THEN scope
                     ELSE jsonb_set(scope->'rows'->ref, '{actor}', audit_named(scope->'rows'->ref->'actor')) END
       $$`,
    );
    // The entries of one statement's rows: one INSERT … SELECT over its transition tables.
    await db.query(AUDIT_ROWS);
    await db.query(
      `CREATE FUNCTION audit_key(j jsonb, keys text[]) RETURNS text LANGUAGE sql IMMUTABLE AS $$
         SELECT string_agg(j->>k, '|') FROM unnest(keys) k
       $$`,
    );
    // The accounts an entry of a row goes to: each named column's (distinct, not null), or the account of the row's user.
    await db.query(
      `CREATE FUNCTION audit_accounts(j jsonb, accounts text[]) RETURNS TABLE (account_id uuid) LANGUAGE sql STABLE AS $$
         SELECT DISTINCT CASE WHEN c LIKE 'user:%' THEN (SELECT u.account_id FROM users u WHERE u.id = (j->>substr(c, 6))::uuid)
                              ELSE (j->>c)::uuid END
           FROM unnest(accounts) c
          WHERE j->>(CASE WHEN c LIKE 'user:%' THEN substr(c, 6) ELSE c END) IS NOT NULL
       $$`,
    );
    for (const t of TABLES) {
      const args = [
        literal(t.resource),
        literal(t.accounts),
        literal(t.keys),
        literal(t.ref),
        literal(`{${t.withheld.join(',')}}`),
        literal(`{${[...ALWAYS_IGNORED, ...t.ignored].join(',')}}`),
      ].join(', ');
      await db.query(
        `CREATE TRIGGER audit_inserts AFTER INSERT ON ${t.table} REFERENCING NEW TABLE AS new_rows
           FOR EACH STATEMENT EXECUTE FUNCTION audit_rows(${args})`,
      );
      await db.query(
        `CREATE TRIGGER audit_updates AFTER UPDATE ON ${t.table} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
           FOR EACH STATEMENT EXECUTE FUNCTION audit_rows(${args})`,
      );
      await db.query(
        `CREATE TRIGGER audit_deletes AFTER DELETE ON ${t.table} REFERENCING OLD TABLE AS old_rows
           FOR EACH STATEMENT EXECUTE FUNCTION audit_rows(${args})`,
      );
    }
    // Each entry of a record's log names who made it: the actor of the transaction's scope, by default.
    await db.query(
      `CREATE FUNCTION audit_actor() RETURNS jsonb LANGUAGE sql STABLE AS $$
         SELECT NULLIF(current_setting('gate.audit', true), '')::jsonb -> 'actor'
       $$`,
    );
    for (const log of ['trip_logs', 'appointment_logs']) await db.query(`ALTER TABLE ${log} ADD COLUMN actor jsonb DEFAULT audit_actor()`);
  }

  async down(db: QueryRunner): Promise<void> {
    // The sealers' order (entries, then anchors), so a sealer of a running instance never deadlocks with this.
    await db.query(`LOCK TABLE audit_entries, audit_anchors IN ACCESS EXCLUSIVE MODE`);
    for (const log of ['trip_logs', 'appointment_logs']) await db.query(`ALTER TABLE ${log} DROP COLUMN actor`);
    await db.query(`DROP FUNCTION audit_actor()`);
    for (const t of TABLES) {
      for (const trigger of ['audit_inserts', 'audit_updates', 'audit_deletes']) await db.query(`DROP TRIGGER ${trigger} ON ${t.table}`);
    }
    await db.query(`DROP FUNCTION audit_rows()`);
    await db.query(`DROP FUNCTION audit_accounts(jsonb, text[])`);
    await db.query(`DROP FUNCTION audit_key(jsonb, text[])`);
    await db.query(`DROP FUNCTION audit_row_scope(jsonb, text)`);
    await db.query(`DROP FUNCTION audit_scope()`);
    await db.query(`DROP FUNCTION audit_named(jsonb)`);
    await db.query(`DROP FUNCTION audit_update_action(text, jsonb, jsonb)`);
    await db.query(`DROP TABLE audit_anchors`);
    await db.query(`DROP TABLE audit_entries`);
  }
}
