import type pg from 'pg';

/**
 * Runs `work` with the audit trail's triggers of `tables` off, and turns them on again whatever happens: a section's
 * fill of history (a million appointments standing for years of past bookings, whose entries are not what such a
 * section measures: with the triggers on, the service's sealer would number and hash a million entries while its
 * figures are taken), or the audit section's floor that writes the entries itself. The audit trail's own cost is
 * measured in its section (scripts/bench/audit.ts).
 */
export async function withoutAuditTrail<T>(client: pg.Client, tables: string[], work: () => Promise<T>): Promise<T> {
  const triggers = (
    await client.query<{ table: string; name: string }>(
      `SELECT t.tgrelid::regclass::text AS table, t.tgname AS name
         FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
        WHERE t.tgrelid = ANY($1::regclass[]) AND NOT t.tgisinternal AND t.tgenabled <> 'D' AND p.proname LIKE 'audit%'`,
      [tables],
    )
  ).rows;
  const alter = async (on: boolean) => {
    for (const { table, name } of triggers)
      await client.query(`ALTER TABLE ${table} ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ${client.escapeIdentifier(name)}`);
  };
  if (triggers.length === 0) throw new Error(`no audit trigger on ${tables.join(', ')}: the work would not be what it claims`);
  await alter(false);
  try {
    return await work();
  } finally {
    await alter(true);
  }
}
