import type { DataSource } from 'typeorm';

/**
 * Until every transaction of this database that had begun writing by now has ended: then the account feed shows
 * every event committed before this call (its horizon waits for this database's writers only: docs/events.md). Other
 * databases of the server (another test file's, a benchmark's million-row fill) are not waited for.
 */
export async function settled(db: DataSource): Promise<void> {
  const rows: { xid: string }[] = await db.query(
    `SELECT backend_xid::text AS xid FROM pg_stat_activity
      WHERE datname = current_database() AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()`,
  );
  const running = rows.map((row) => row.xid);
  for (let i = 0; running.length > 0; i++) {
    const [{ n }]: { n: number }[] = await db.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND backend_xid::text = ANY($1::text[])`,
      [running],
    );
    if (n === 0) return;
    if (i >= 500) throw new Error('a transaction of this database stayed open for 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Until every audit entry written so far is sealed (numbered and chained within a second of its change: docs/audit.md#sealing). */
export async function auditSealed(db: DataSource): Promise<void> {
  for (let i = 0; ; i++) {
    const [{ n }]: { n: number }[] = await db.query(`SELECT count(*)::int AS n FROM audit_entries WHERE seq IS NULL`);
    if (n === 0) return;
    if (i >= 500) throw new Error('audit entries stayed unsealed for 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
