import type { DataSource, EntityManager } from 'typeorm';
import { executeOf, type FirstStatement, type SimpleQueryClient } from './prepared.js';

const RETRYABLE = new Set(['40P01', '40001']); // deadlock detected, serialization failure

function sqlState(error: unknown): string | undefined {
  const e = error as { code?: unknown; driverError?: { code?: unknown } };
  const code = e?.driverError?.code ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * How a transaction opens: `begin` (`START TRANSACTION` and what must follow it before anything else, a mark the
 * transaction carries from before it has an id), and optionally its `first` statement sent with it, and its
 * `commit` too when nothing follows that statement. All in one simple query, so one round trip.
 */
export interface Opening<R> {
  begin: string;
  first?: FirstStatement<R>;
  commit?: boolean;
}

/**
 * One transaction, run again (up to `attempts` times) when PostgreSQL aborts it as a deadlock victim or a
 * serialization failure. `work` must only touch the database through `manager`, so a retry is clean. `opening`:
 * the transaction's opening, sent in one round trip instead of TypeORM's `START TRANSACTION` (see
 * `transactionOpenedWith`); `work` gets what its first statement read.
 */
export async function inTransaction<T, R = undefined>(
  db: DataSource,
  work: (manager: EntityManager, first: R) => Promise<T>,
  { attempts = 3, opening }: { attempts?: number; opening?: Opening<R> } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await (opening ? transactionOpenedWith(db, opening, work) : db.transaction((manager) => work(manager, undefined as R)));
    } catch (error) {
      if (attempt >= attempts || !RETRYABLE.has(sqlState(error) ?? '')) throw error;
    }
  }
}

/**
 * What `db.transaction(work)` does, but opened by `opening` in one simple query: `begin`, then the first
 * statement's EXECUTE (prepared on the connection the first time), then `COMMIT` when `commit` says nothing follows
 * it. TypeORM's own record of the transaction is set as its `startTransaction()` sets it, so a nested transaction
 * is a savepoint, and commit and rollback work as usual; once the opening has committed, `work` may not write.
 */
async function transactionOpenedWith<T, R>(
  db: DataSource,
  { begin, first, commit }: Opening<R>,
  work: (manager: EntityManager, first: R) => Promise<T>,
): Promise<T> {
  const runner = db.createQueryRunner();
  try {
    Object.assign(runner, { isTransactionActive: true, transactionDepth: 1 });
    let read = undefined as R;
    if (first) {
      const client = (await runner.connect()) as SimpleQueryClient;
      const execute = await executeOf(client, first);
      // Logged as one query, as it is one round trip: the opening, the statement (with its values) and the COMMIT.
      const [opening, closing] = [`${begin}; `, commit ? '; COMMIT' : ''];
      db.logger.logQuery(`${opening}${first.text}${closing}`, first.values, runner);
      const results = (await client.query(`${opening}${execute}${closing}`)) as { rows: unknown[] }[];
      if (commit) Object.assign(runner, { isTransactionActive: false, transactionDepth: 0 });
      read = first.read(results[results.length - (commit ? 2 : 1)].rows);
    } else await runner.query(begin);
    const result = await work(runner.manager, read);
    if (runner.isTransactionActive) await runner.commitTransaction();
    return result;
  } catch (error) {
    if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
    throw error;
  } finally {
    await runner.release();
  }
}
