import type { DataSource, QueryRunner, ReplicationMode } from 'typeorm';
import { AUDITED_TABLES, auditSetting, currentAuditScope, SET_AUDIT_SCOPE } from './audit-context.js';
import { pipelined, type PipelineClient } from './prepared.js';

/** A statement that writes one of the audited tables (a CTE that writes included). */
const AUDITED_WRITE = new RegExp(
  String.raw`^\s*(?:WITH\b[\s\S]*?)?\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?(?:${AUDITED_TABLES.join('|')})"?\b`,
  'i',
);

/**
 * Makes every transaction of `dataSource` carry the audit scope of the request or job that runs it
 * (docs/audit.md#how-entries-are-written): TypeORM's outermost `START TRANSACTION` is sent with SET_AUDIT_SCOPE in one
 * round trip, and a write to an audited table made outside a transaction by a request (whose actor is known) runs
 * in one of its own. So no route has to remember the trail: the audit triggers read the scope of the transaction.
 * The openings of `inTransaction` add the same statement themselves (src/database/transaction.ts). `named`: whether
 * statements may be named (not behind PgBouncer).
 */
export function auditTransactions(dataSource: DataSource, named: boolean): void {
  const driver = dataSource.driver;
  const create = driver.createQueryRunner.bind(driver);
  driver.createQueryRunner = (mode: ReplicationMode) => {
    const runner = create(mode);
    const query: QueryRunner['query'] = runner.query.bind(runner);
    runner.query = (async (text: string, parameters?: unknown[], structured?: boolean) => {
      if (text === 'START TRANSACTION') return startAudited(dataSource, runner, named);
      if (!runner.isTransactionActive && currentAuditScope()?.actor && AUDITED_WRITE.test(text)) {
        await runner.startTransaction();
        try {
          const result = await query(text, parameters, structured as true);
          await runner.commitTransaction();
          return result;
        } catch (error) {
          if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
          throw error;
        }
      }
      return query(text, parameters, structured as true);
    }) as QueryRunner['query'];
    return runner;
  };
}

async function startAudited(dataSource: DataSource, runner: QueryRunner, named: boolean): Promise<never[]> {
  const client = (await runner.connect()) as PipelineClient;
  const scope = auditSetting();
  dataSource.logger.logQuery(`START TRANSACTION; ${SET_AUDIT_SCOPE}`, [scope], runner);
  await pipelined(client, [{ text: 'START TRANSACTION' }, auditStep(scope)], { named });
  return [];
}

/** The statement that gives an opening transaction the running audit scope. */
export const auditStep = (scope = auditSetting()) => ({ text: SET_AUDIT_SCOPE, values: [scope] });
