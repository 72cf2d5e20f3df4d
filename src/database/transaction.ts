import type { DataSource, EntityManager } from 'typeorm';

const RETRYABLE = new Set(['40P01', '40001']); // deadlock detected, serialization failure

function sqlState(error: unknown): string | undefined {
  const e = error as { code?: unknown; driverError?: { code?: unknown } };
  const code = e?.driverError?.code ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * One transaction, run again (up to `attempts` times) when PostgreSQL aborts it as a deadlock victim or a
 * serialization failure. `work` must only touch the database through `manager`, so a retry is clean. `begin`: the
 * transaction's opening, sent in one round trip instead of TypeORM's `START TRANSACTION` (see `transactionBegunWith`).
 */
export async function inTransaction<T>(
  db: DataSource,
  work: (manager: EntityManager) => Promise<T>,
  { attempts = 3, begin }: { attempts?: number; begin?: string } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await (begin ? transactionBegunWith(db, begin, work) : db.transaction(work));
    } catch (error) {
      if (attempt >= attempts || !RETRYABLE.has(sqlState(error) ?? '')) throw error;
    }
  }
}

/**
 * What `db.transaction(work)` does, but opened by `begin`: `START TRANSACTION` and what must follow it before
 * anything else (a mark the transaction carries from before it has an id), sent as one simple query, so in one
 * round trip (`begin` takes no parameters). TypeORM's own record of the transaction is set as its
 * `startTransaction()` sets it, so a nested transaction is a savepoint, and commit and rollback work as usual.
 */
async function transactionBegunWith<T>(db: DataSource, begin: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  const runner = db.createQueryRunner();
  try {
    Object.assign(runner, { isTransactionActive: true, transactionDepth: 1 });
    await runner.query(begin);
    const result = await work(runner.manager);
    await runner.commitTransaction();
    return result;
  } catch (error) {
    await runner.rollbackTransaction().catch(() => undefined);
    throw error;
  } finally {
    await runner.release();
  }
}
