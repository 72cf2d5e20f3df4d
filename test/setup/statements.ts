import type { DataSource } from 'typeorm';

/** Runs `work` and returns the SQL statements the app sent meanwhile (transaction control excluded). */
export async function captureStatements(dataSource: DataSource, work: () => Promise<unknown>): Promise<string[]> {
  const logger = dataSource.logger;
  const original = logger.logQuery;
  const statements: string[] = [];
  logger.logQuery = function (query, parameters, queryRunner) {
    if (!/^(START TRANSACTION|BEGIN|COMMIT|ROLLBACK|SET TRANSACTION)/i.test(query.trim())) statements.push(query);
    return original.call(this, query, parameters, queryRunner);
  };
  try {
    await work();
  } finally {
    logger.logQuery = original;
  }
  return statements;
}
