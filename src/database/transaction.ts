import type { DataSource, EntityManager } from 'typeorm';

const RETRYABLE = new Set(['40P01', '40001']); // deadlock detected, serialization failure

function sqlState(error: unknown): string | undefined {
  const e = error as { code?: unknown; driverError?: { code?: unknown } };
  const code = e?.driverError?.code ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * One transaction, run again (up to `attempts` times) when PostgreSQL aborts it as a deadlock victim or a
 * serialization failure. `work` must only touch the database through `manager`, so a retry is clean.
 */
export async function inTransaction<T>(db: DataSource, work: (manager: EntityManager) => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work);
    } catch (error) {
      if (attempt >= attempts || !RETRYABLE.has(sqlState(error) ?? '')) throw error;
    }
  }
}
