import type { DataSource } from 'typeorm';

/** Runs `work` and returns the SQL statements the app sent meanwhile (transaction control excluded). */
export async function captureStatements(dataSource: DataSource, work: () => Promise<unknown>): Promise<string[]> {
  return (await captureQueries(dataSource, work)).map((statement) => statement.query);
}

/** Runs `work` and returns the statements the app sent meanwhile with their parameters (transaction control excluded). */
export async function captureQueries(
  dataSource: DataSource,
  work: () => Promise<unknown>,
): Promise<{ query: string; parameters: unknown[] }[]> {
  const logger = dataSource.logger;
  const original = logger.logQuery;
  const statements: { query: string; parameters: unknown[] }[] = [];
  logger.logQuery = function (query, parameters, queryRunner) {
    if (!/^(START TRANSACTION|BEGIN|COMMIT|ROLLBACK|SET TRANSACTION)/i.test(query.trim()))
      statements.push({ query, parameters: (parameters as unknown[] | undefined) ?? [] });
    return original.call(this, query, parameters, queryRunner);
  };
  try {
    await work();
  } finally {
    logger.logQuery = original;
  }
  return statements;
}
