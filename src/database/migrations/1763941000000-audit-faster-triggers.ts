import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit trigger function with `update`, the INSERT … SELECT of an UPDATE statement's entries; the other two
 * branches as the audit migration wrote them, but for `once`: ` OFFSET 0` in their subquery of rows as JSON keeps it
 * from being pulled up into the statement, where each row's `to_jsonb` was computed again for every use of it (its
 * key, its ref, each account column, the sort of its accounts…).
 */
const auditRows = (update: string, once: string) =>
  `CREATE OR REPLACE FUNCTION audit_rows() RETURNS trigger LANGUAGE plpgsql AS $$
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
       ${update}
     ELSIF TG_OP = 'INSERT' THEN
       INSERT INTO audit_entries (account_id, actor, action, target, request_id, ip, user_agent)
       SELECT a.account_id, s.v->'actor', resource || '.created', jsonb_build_object('type', resource, 'id', r.j->>keys[1], 'ref', r.j->>ref),
              s.v->>'request_id', s.v->>'ip', s.v->>'user_agent'
         FROM (SELECT to_jsonb(n) AS j FROM new_rows n${once}) r
         CROSS JOIN LATERAL (SELECT CASE WHEN scope ? 'rows' THEN audit_row_scope(scope, r.j->>ref) ELSE scope END AS v) s
         CROSS JOIN LATERAL audit_accounts(r.j, accounts) a;
     ELSE
       INSERT INTO audit_entries (account_id, actor, action, target, request_id, ip, user_agent)
       SELECT a.account_id, scope->'actor', resource || '.deleted', jsonb_build_object('type', resource, 'id', r.j->>keys[1], 'ref', r.j->>ref),
              scope->>'request_id', scope->>'ip', scope->>'user_agent'
         FROM (SELECT to_jsonb(o) AS j FROM old_rows o${once}) r CROSS JOIN LATERAL audit_accounts(r.j, accounts) a;
     END IF;
     RETURN NULL;
   END $$`;

/** The audit migration's: each row's key, changes and action computed by a function call per row (and per comparison). */
const UPDATE_BEFORE = `INSERT INTO audit_entries (account_id, actor, action, target, changes, request_id, ip, user_agent)
       SELECT a.account_id, scope->'actor', audit_update_action(resource, r.o, r.n),
              jsonb_build_object('type', resource, 'id', r.n->>keys[1], 'ref', r.n->>ref), r.changes,
              scope->>'request_id', scope->>'ip', scope->>'user_agent'
         FROM (SELECT to_jsonb(o) AS o, to_jsonb(n) AS n,
                      audit_changes(to_jsonb(o), to_jsonb(n), withheld, ignored) AS changes
                 FROM old_rows o JOIN new_rows n ON audit_key(to_jsonb(o), keys) = audit_key(to_jsonb(n), keys)) r
         CROSS JOIN LATERAL audit_accounts(r.n, accounts) a
        WHERE r.changes IS NOT NULL;`;

/** Each side's rows as JSON with their key, computed once per row (one column: the column's value, as audit_key gives it). */
const keyed = (rows: string) =>
  `(SELECT j, CASE WHEN cardinality(keys) = 1 THEN j->>keys[1] ELSE audit_key(j, keys) END AS k
      FROM (SELECT to_jsonb(x) AS j FROM ${rows} x OFFSET 0) x)`;

/**
 * The same entries, in fewer steps: each row turned into JSON and keyed once, the two sides joined on the key, the
 * changes aggregated over the new row's fields in the statement itself (audit_changes' very expression), and the
 * action from audit_update_action over the joined rows as columns (OFFSET 0 keeps them columns, so that the function
 * is inlined rather than called once per row).
 */
const UPDATE_AFTER = `INSERT INTO audit_entries (account_id, actor, action, target, changes, request_id, ip, user_agent)
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
 * The audit trigger made cheaper (docs/benchmarks.md#the-audit-trail-2026-11-29): the same entries, the same
 * behaviour. An update of 1,000 appointments spent most of its time calling `audit_key`, `audit_changes` and
 * `audit_update_action` once per row; a create, computing each row's JSON six times over.
 */
export class AuditFasterTriggers1763941000000 implements MigrationInterface {
  name = 'AuditFasterTriggers1763941000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(auditRows(UPDATE_AFTER, ' OFFSET 0'));
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(auditRows(UPDATE_BEFORE, ''));
  }
}
