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
  const original = logger.logQuery.bind(logger);
  const statements: { query: string; parameters: unknown[] }[] = [];
  logger.logQuery = (query, parameters, queryRunner) => {
    if (!/^(START TRANSACTION|BEGIN|COMMIT|ROLLBACK|SET TRANSACTION)/i.test(query.trim()))
      statements.push({ query, parameters: (parameters as unknown[] | undefined) ?? [] });
    return original(query, parameters, queryRunner);
  };
  try {
    await work();
  } finally {
    logger.logQuery = original;
  }
  return statements;
}

/** PostgreSQL's plan of a captured statement (`EXPLAIN`, as text) with these planner settings off for it alone. */
export function planOf(
  dataSource: DataSource,
  statement: { query: string; parameters: unknown[] },
  off: ('enable_seqscan' | 'enable_bitmapscan' | 'enable_nestloop')[],
): Promise<string> {
  return dataSource.transaction(async (manager) => {
    for (const setting of off) await manager.query(`SET LOCAL ${setting} = off`);
    const rows: { 'QUERY PLAN': string }[] = await manager.query(`EXPLAIN ${statement.query}`, statement.parameters);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}
