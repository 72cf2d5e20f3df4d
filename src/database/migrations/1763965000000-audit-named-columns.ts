import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the audit trail records of each table (docs/audit.md#what-is-recorded), as the audit migration set it: the
 * resource its entries name, the columns naming the accounts an entry goes to (a column of the row, or `user:` the
 * account of the row's user), the columns of its key, the column of its `ref`, the columns whose values never appear
 * (a change to them shows as "[withheld]"), and the columns whose changes are not recorded (the service's bookkeeping).
 */
export const AUDITED: {
  table: string;
  resource: string;
  accounts: string[];
  keys: string[];
  ref: string;
  withheld: string[];
  ignored: string[];
}[] = [
  { table: 'accounts', resource: 'account', accounts: ['id'], keys: ['id'], ref: 'name', withheld: [], ignored: [] },
  {
    table: 'account_sso',
    resource: 'sso',
    accounts: ['account_id'],
    keys: ['account_id'],
    ref: 'issuer',
    withheld: ['client_secret'],
    ignored: [],
  },
  {
    table: 'api_keys',
    resource: 'api_key',
    accounts: ['account_id'],
    keys: ['id'],
    ref: 'name',
    withheld: ['key_hash'],
    ignored: ['last_used_at'],
  },
  {
    table: 'users',
    resource: 'user',
    accounts: ['account_id'],
    keys: ['id'],
    ref: 'email',
    withheld: ['password_hash', 'mfa_secret', 'recovery_codes'],
    ignored: ['last_sign_in_at'],
  },
  {
    table: 'invitations',
    resource: 'invitation',
    accounts: ['user:user_id'],
    keys: ['id'],
    ref: '',
    withheld: ['token_hash'],
    ignored: [],
  },
  { table: 'sessions', resource: 'session', accounts: ['user:user_id'], keys: ['id'], ref: '', withheld: ['token_hash'], ignored: [] },
  { table: 'trips', resource: 'trip', accounts: ['trucking_company_id'], keys: ['id'], ref: 'ref', withheld: [], ignored: [] },
  {
    table: 'appointments',
    resource: 'appointment',
    accounts: ['terminal_id', 'booked_by_id'],
    keys: ['id'],
    ref: 'ref',
    withheld: [],
    // The reports' bookkeeping (the wait to the first ticket, set with the check-in: docs/reports.md), and the plate's
    // keys for the gate's matching (set from license_plate, whose change is recorded: GatePlateColumns1763971000000).
    ignored: ['plate_checkin_id', 'ticket_wait_seconds', 'plate_key', 'plate_fold'],
  },
  { table: 'tickets', resource: 'ticket', accounts: ['terminal_id'], keys: ['id'], ref: 'layout_ref', withheld: [], ignored: [] },
  { table: 'checkins', resource: 'checkin', accounts: ['terminal_id'], keys: ['id'], ref: '', withheld: [], ignored: ['instance_id'] },
  { table: 'layouts', resource: 'layout', accounts: ['owner_id'], keys: ['id'], ref: 'ref', withheld: [], ignored: [] },
  { table: 'capacity_rules', resource: 'capacity_rule', accounts: ['terminal_id'], keys: ['id'], ref: 'ref', withheld: [], ignored: [] },
  {
    table: 'webhooks',
    resource: 'webhook',
    accounts: ['account_id'],
    keys: ['id'],
    ref: 'description',
    withheld: ['secret', 'previous_secret'],
    ignored: ['cursor_tx', 'cursor_seq', 'failing_since', 'slow'],
  },
  {
    table: 'driver_token_grants',
    resource: 'driver_tokens',
    accounts: ['account_id'],
    keys: ['driver_id', 'account_id'],
    ref: '',
    withheld: [],
    ignored: [],
  },
  {
    table: 'driver_sign_in_codes',
    resource: 'sign_in_code',
    accounts: ['account_id'],
    keys: ['code_digest'],
    ref: '',
    withheld: ['code_digest'],
    ignored: [],
  },
  {
    table: 'gate_reads',
    resource: 'gate_read',
    accounts: ['terminal_id'],
    keys: ['id'],
    ref: 'read_id',
    withheld: [],
    ignored: ['image', 'instance_id'],
  },
  {
    table: 'gate_referrals',
    resource: 'gate_referral',
    accounts: ['terminal_id'],
    keys: ['id'],
    ref: 'appointment_ref',
    withheld: [],
    ignored: ['resolving_instance', 'resolving_since'],
  },
];

/** Bookkeeping every table has: never recorded as a change. */
const ALWAYS_IGNORED = ['created_at', 'updated_at'];

/** A column set, as `o.x IS NULL AND n.x IS NOT NULL` says over the row before (`o`) and after (`n`). */
const set = (column: string) => `o.${column} IS NULL AND n.${column} IS NOT NULL`;
const moved = (column: string) => `o.${column} IS DISTINCT FROM n.${column}`;

/**
 * The action of an update (docs/audit.md#actions): the first of its resource's cases that holds, else `updated`;
 * each case with the columns it reads (a case over a column the table lacks never holds, and is left out).
 */
const ACTIONS: Record<string, { reads: string[]; when: string; then: string }[]> = {
  appointment: [
    { reads: ['status'], when: moved('status'), then: `CASE WHEN n.status = 'DELETED' THEN 'deleted' ELSE 'status_changed' END` },
    { reads: ['no_show_at'], when: set('no_show_at'), then: `'no_show'` },
    { reads: ['arrived_at'], when: set('arrived_at'), then: `'arrived'` },
    { reads: ['entered_at'], when: set('entered_at'), then: `'entered'` },
    { reads: ['departed_at'], when: set('departed_at'), then: `'departed'` },
  ],
  trip: [{ reads: ['status'], when: moved('status'), then: `CASE WHEN n.status = 'DELETED' THEN 'deleted' ELSE 'status_changed' END` }],
  user: [
    { reads: ['role'], when: moved('role'), then: `'role_changed'` },
    {
      reads: ['status'],
      when: moved('status'),
      then: `CASE WHEN n.status <> 'active' THEN lower(n.status::text) WHEN o.status = 'invited' THEN 'activated' ELSE 'reactivated' END`,
    },
    { reads: ['password_hash'], when: moved('password_hash'), then: `'password_changed'` },
    { reads: ['mfa_enabled'], when: moved('mfa_enabled'), then: `CASE WHEN n.mfa_enabled THEN 'mfa_enabled' ELSE 'mfa_disabled' END` },
  ],
  api_key: [{ reads: ['revoked_at'], when: set('revoked_at'), then: `'revoked'` }],
  webhook: [{ reads: ['enabled'], when: moved('enabled'), then: `CASE WHEN n.enabled THEN 'enabled' ELSE 'disabled' END` }],
  session: [{ reads: ['ended_at'], when: set('ended_at'), then: `'ended'` }],
  invitation: [{ reads: ['used_at'], when: set('used_at'), then: `'accepted'` }],
  driver_tokens: [{ reads: ['generation'], when: moved('generation'), then: `'revoked'` }],
  checkin: [{ reads: ['status'], when: moved('status'), then: `lower(n.status::text)` }],
  gate_referral: [{ reads: ['status'], when: moved('status'), then: `lower(n.status::text)` }],
  gate_read: [
    { reads: ['status'], when: moved('status'), then: `lower(n.status::text)` },
    { reads: ['outcome'], when: moved('outcome'), then: `lower(n.outcome::text)` },
  ],
};

const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;
const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The trigger function of `table`'s audit entries. */
export const auditFunction = (table: string) => `audit_${table}`;

/**
 * The audit trigger function of one table, naming its columns (the audit migration's was one generic function turning
 * each row into JSON and diffing the JSON): the entries of a statement's rows in one INSERT … SELECT over its
 * transition tables, each value read from its column. It writes exactly what the generic one wrote: a column's value as
 * `to_jsonb` gives it (`jsonb_build_array` and `jsonb_build_object` convert the same way), a change where the column's
 * values are distinct (the same as their JSON's being distinct for every type the audited tables hold), and the key,
 * the ref and the accounts as the JSON's text. A statement that wrote no row returns at once: PostgreSQL fires statement
 * triggers for a step of a larger statement that matched nothing too (a webhook's health, set only when it changes).
 * `columns`: the table's columns with their types, in order, as the catalog lists them when this runs; the function
 * lists them in a comment, so that a test finds a table whose columns changed since (a migration that adds or drops a
 * column of an audited table generates its function again: installAuditTriggers).
 */
export function auditTriggerSql(t: (typeof AUDITED)[number], columns: { name: string; type: string }[]): string {
  const has = new Set(columns.map((c) => c.name));
  const typeOf = new Map(columns.map((c) => [c.name, c.type]));
  for (const name of [...t.keys, ...t.accounts.map((a) => a.replace(/^user:/, '')), ...(t.ref ? [t.ref] : []), ...t.withheld])
    if (!has.has(name)) throw new Error(`audit: ${t.table} has no column ${name}`);
  // A column's value as the text of its JSON (what `j->>column` gave).
  const text = (row: string, name: string) =>
    ['text', 'uuid', 'character varying'].includes(typeOf.get(name)!)
      ? `${row}.${ident(name)}::text`
      : `(to_jsonb(${row}.${ident(name)}) #>> '{}')`;
  const target = (row: string) =>
    `jsonb_build_object('type', ${literal(t.resource)}, 'id', ${text(row, t.keys[0])}, 'ref', ${t.ref ? text(row, t.ref) : 'NULL::text'})`;
  // The accounts of a row: each account column's, distinct and not null; or the account of the row's user.
  const accounts = (row: string) => {
    const one = (a: string) =>
      a.startsWith('user:') ? `(SELECT u.account_id FROM users u WHERE u.id = ${row}.${ident(a.slice(5))})` : `${row}.${ident(a)}`;
    if (t.accounts.length === 1) {
      const [a] = t.accounts;
      return {
        from: `CROSS JOIN LATERAL (SELECT ${one(a)}::uuid AS account_id) acc`,
        where: `${row}.${ident(a.replace(/^user:/, ''))} IS NOT NULL`,
      };
    }
    if (t.accounts.some((a) => a.startsWith('user:'))) throw new Error(`audit: ${t.table}: a user's account among several account columns`);
    const values = t.accounts.map((a) => `${row}.${ident(a)}::uuid`);
    return {
      from: `CROSS JOIN LATERAL (SELECT DISTINCT x FROM unnest(ARRAY[${values.join(', ')}]) x WHERE x IS NOT NULL) acc(account_id)`,
      where: 'true',
    };
  };
  const ignored = new Set([...ALWAYS_IGNORED, ...t.ignored]);
  const withheld = new Set(t.withheld);
  const change = (name: string) =>
    `CASE WHEN o.${ident(name)} IS DISTINCT FROM n.${ident(name)} THEN jsonb_build_object(${literal(name)}, ${
      withheld.has(name) ? `'["[withheld]", "[withheld]"]'::jsonb` : `jsonb_build_array(o.${ident(name)}, n.${ident(name)})`
    }) ELSE '{}'::jsonb END`;
  const changes = columns.filter((c) => !ignored.has(c.name)).map((c) => change(c.name));
  const cases = (ACTIONS[t.resource] ?? []).filter((c) => c.reads.every((name) => has.has(name)));
  const action = cases.length
    ? `${literal(`${t.resource}.`)} || CASE ${cases.map((c) => `WHEN ${c.when} THEN ${c.then}`).join(' ')} ELSE 'updated' END`
    : literal(`${t.resource}.updated`);
  const join = t.keys.map((k) => `o.${ident(k)} = n.${ident(k)}`).join(' AND ');
  const inserted = accounts('n');
  const deleted = accounts('o');
  return `CREATE OR REPLACE FUNCTION ${auditFunction(t.table)}() RETURNS trigger LANGUAGE plpgsql AS $$
   -- columns: ${columns.map((c) => c.name).join(',')}
   DECLARE
     scope_ jsonb;
     actor_ jsonb;
     request_ text;
     ip_ text;
     agent_ text;
   BEGIN
     -- A statement that wrote no row of the table (a step of a larger statement that found nothing) has no entry.
     IF TG_OP = 'DELETE' THEN
       IF NOT EXISTS (SELECT FROM old_rows) THEN RETURN NULL; END IF;
     ELSIF NOT EXISTS (SELECT FROM new_rows) THEN
       RETURN NULL;
     END IF;
     scope_ := audit_scope();
     actor_ := scope_->'actor';
     request_ := scope_->>'request_id';
     ip_ := scope_->>'ip';
     agent_ := scope_->>'user_agent';
     IF TG_OP = 'UPDATE' THEN
       INSERT INTO audit_entries (account_id, actor, action, target, changes, request_id, ip, user_agent)
       SELECT acc.account_id, actor_, ${action}, ${target('n')}, c.changes, request_, ip_, agent_
         FROM old_rows o JOIN new_rows n ON ${join}
         CROSS JOIN LATERAL (SELECT NULLIF(${changes.length ? changes.join('\n                 || ') : `'{}'::jsonb`}, '{}'::jsonb) AS changes) c
         ${inserted.from}
        WHERE c.changes IS NOT NULL AND ${inserted.where};
     ELSIF TG_OP = 'INSERT' AND scope_ ? 'rows' THEN
       -- Creates of several requests written together: each row's own request's scope, by its ref.
       INSERT INTO audit_entries (account_id, actor, action, target, request_id, ip, user_agent)
       SELECT acc.account_id, s.v->'actor', ${literal(`${t.resource}.created`)}, ${target('n')}, s.v->>'request_id', s.v->>'ip', s.v->>'user_agent'
         FROM new_rows n
         CROSS JOIN LATERAL (SELECT audit_row_scope(scope_, ${t.ref ? text('n', t.ref) : 'NULL::text'}) AS v) s
         ${inserted.from}
        WHERE ${inserted.where};
     ELSIF TG_OP = 'INSERT' THEN
       INSERT INTO audit_entries (account_id, actor, action, target, request_id, ip, user_agent)
       SELECT acc.account_id, actor_, ${literal(`${t.resource}.created`)}, ${target('n')}, request_, ip_, agent_
         FROM new_rows n
         ${inserted.from}
        WHERE ${inserted.where};
     ELSE
       INSERT INTO audit_entries (account_id, actor, action, target, request_id, ip, user_agent)
       SELECT acc.account_id, actor_, ${literal(`${t.resource}.deleted`)}, ${target('o')}, request_, ip_, agent_
         FROM old_rows o
         ${deleted.from}
        WHERE ${deleted.where};
     END IF;
     RETURN NULL;
   END $$`;
}

/** The columns of `table` with their types, in order, as the catalog lists them now. */
async function columnsOf(db: QueryRunner, table: string): Promise<{ name: string; type: string }[]> {
  const rows = (await db.query(
    `SELECT attname AS name, format_type(atttypid, NULL) AS type FROM pg_attribute
      WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
    [table],
  )) as { name: string; type: string }[];
  return rows;
}

/**
 * (Re)generates the audit trigger functions of `tables` from their columns as they are now, and points their three
 * triggers at them. A migration that adds, drops or renames a column of an audited table calls this after the change.
 */
export async function installAuditTriggers(db: QueryRunner, tables: string[] = AUDITED.map((t) => t.table)): Promise<void> {
  for (const table of tables) {
    const t = AUDITED.find((a) => a.table === table);
    if (!t) throw new Error(`audit: ${table} is not an audited table`);
    await db.query(auditTriggerSql(t, await columnsOf(db, table)));
    await replaceAuditTriggers(db, table, `${auditFunction(table)}()`);
  }
}

/** The audit trail's three statement triggers of `table` (replacing any), each running `call` (a function call). */
async function replaceAuditTriggers(db: QueryRunner, table: string, call: string): Promise<void> {
  const triggers = [
    ['audit_inserts', 'INSERT', 'NEW TABLE AS new_rows'],
    ['audit_updates', 'UPDATE', 'OLD TABLE AS old_rows NEW TABLE AS new_rows'],
    ['audit_deletes', 'DELETE', 'OLD TABLE AS old_rows'],
  ];
  for (const [name, event, referencing] of triggers) {
    await db.query(`DROP TRIGGER IF EXISTS ${name} ON ${table}`);
    await db.query(
      `CREATE TRIGGER ${name} AFTER ${event} ON ${table} REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION ${call}`,
    );
  }
}

/** The arguments of the audit migration's generic trigger function (`audit_rows`) for `t`. */
export const genericAuditArgs = (t: (typeof AUDITED)[number]) =>
  [
    literal(t.resource),
    literal(t.accounts.join(',')),
    literal(t.keys.join(',')),
    literal(t.ref),
    literal(`{${t.withheld.join(',')}}`),
    literal(`{${[...ALWAYS_IGNORED, ...t.ignored].join(',')}}`),
  ].join(', ');

/**
 * The audit triggers of each table by a function of its own that names the table's columns, in place of the generic
 * `audit_rows` (which turned every row into JSON to read its key, ref, accounts and changes): the same entries, for
 * less (docs/benchmarks.md#the-audit-trails-writes-2026-11-29-later). The generic functions stay, for `down`.
 */
export class AuditNamedColumns1763965000000 implements MigrationInterface {
  name = 'AuditNamedColumns1763965000000';

  async up(db: QueryRunner): Promise<void> {
    await installAuditTriggers(db);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const t of AUDITED) {
      await replaceAuditTriggers(db, t.table, `audit_rows(${genericAuditArgs(t)})`);
      await db.query(`DROP FUNCTION ${auditFunction(t.table)}()`);
    }
  }
}
