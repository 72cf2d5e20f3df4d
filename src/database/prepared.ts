import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';

/** The node-postgres client under a QueryRunner, as far as a named statement needs it. */
interface NamedStatementClient {
  query<T>(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: T[] }>;
}

/**
 * Runs `text` in the transaction of `manager` as a named prepared statement: each connection parses and plans it
 * once, and PostgreSQL may keep a generic plan. For the long statements of hot paths, whose planning costs more
 * than their execution (a check-in's acceptance: about 1.1 ms of planning for 0.6 ms of execution). The name is a
 * digest of the text, so statements whose text is built at run time never share one. Logged as TypeORM logs its
 * queries, on the transaction's QueryRunner; a failure is the driver's error, not wrapped in QueryFailedError.
 */
export async function preparedQuery<T>(manager: EntityManager, text: string, values: unknown[]): Promise<T[]> {
  const runner = manager.queryRunner;
  if (!runner) throw new Error('preparedQuery runs inside a transaction');
  manager.connection.logger.logQuery(text, values, runner);
  const client = (await runner.connect()) as NamedStatementClient;
  const name = `prepared-${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
  return (await client.query<T>({ name, text, values })).rows;
}
