import type { DataSource, EntityManager } from 'typeorm';
import { namedStatements } from './data-source.js';
import { auditStep } from './audited-runners.js';
import { type FirstStatement, pipelined, type PipelineClient, type PipelineStep } from './prepared.js';

const RETRYABLE = new Set(['40P01', '40001']); // deadlock detected, serialization failure

function sqlState(error: unknown): string | undefined {
  const e = error as { code?: unknown; driverError?: { code?: unknown } };
  const code = e?.driverError?.code ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * How a transaction opens: `begin` (`START TRANSACTION` and what must follow it before anything else, a mark the
 * transaction carries from before it has an id: statements without values), and optionally its `first` statement
 * sent with it, and its `commit` too when nothing follows that statement. All in one round trip: `begin` alone as one
 * simple query, with a first statement as one pipeline of the extended protocol (its values bound, not written in).
 */
export interface Opening<R> {
  begin: readonly string[];
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
 * What `db.transaction(work)` does, but opened by `opening` in one round trip: `begin`, then the first statement
 * with its values as parameters (a named statement, parsed once per connection, unless the data source is behind
 * PgBouncer), then `COMMIT` when `commit` says nothing follows it (see `pipelined`). TypeORM's own record of the transaction is set as its `startTransaction()` sets it, so a nested transaction
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
    const client = (await runner.connect()) as PipelineClient;
    // Logged as one query, as it is one round trip: the opening, its audit scope, the statement (with its values) and the COMMIT.
    const audit = auditStep();
    const opening = `${begin.join('; ')}; ${audit.text}`;
    const steps: PipelineStep[] = [...begin.map((text) => ({ text })), audit];
    if (first) {
      db.logger.logQuery(`${opening}; ${first.text}${commit ? '; COMMIT' : ''}`, [...audit.values, ...first.values], runner);
      steps.push({ text: first.text, values: first.values, named: !first.planEachTime }, ...(commit ? [{ text: 'COMMIT' }] : []));
    } else db.logger.logQuery(opening, audit.values, runner);
    const results = await pipelined(client, steps, { named: namedStatements(db) });
    if (first) {
      if (commit) Object.assign(runner, { isTransactionActive: false, transactionDepth: 0 });
      read = first.read(results[begin.length + 1].rows);
    }
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
