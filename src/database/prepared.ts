import { createHash } from 'node:crypto';
import { escapeLiteral } from 'pg';

/**
 * A statement of a hot path (a check-in's start and acceptance) sent with the opening of its transaction, and with
 * its COMMIT when nothing follows it: one round trip where a transaction of one statement costs three (the `opening`
 * of `inTransaction`). `read` turns its rows into what the caller wants. A failure is the driver's error, not wrapped
 * in TypeORM's QueryFailedError.
 */
export interface FirstStatement<R> {
  text: string;
  values: unknown[];
  read(rows: unknown[]): R;
}

/** The node-postgres client under a QueryRunner (or the embedded store's), as far as a simple query needs it. */
export interface SimpleQueryClient {
  query(text: string): Promise<unknown>;
}

/** Per connection, the statements prepared on it (SQL `PREPARE`, for `EXECUTE` inside a simple query). */
const preparedOn = new WeakMap<SimpleQueryClient, Set<string>>();

/**
 * The name of `text` prepared on a connection: a digest of the text, so statements whose text is built at run time
 * never share one (and never meet the protocol's named statements, which have names of their own).
 */
const nameOf = (text: string) => `first_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;

/**
 * `EXECUTE` of `statement` on `client`, for a simple query (which takes no parameters: the values are written as
 * literals, quoted by node-postgres). Prepares it on the connection the first time, in a round trip of its own: each
 * connection parses and plans it once, as a protocol-level named statement would be. Its planning costs more than
 * its execution (a check-in's acceptance: about 1.1 ms of planning for 0.6 ms of execution).
 */
export async function executeOf(client: SimpleQueryClient, statement: FirstStatement<unknown>): Promise<string> {
  const name = nameOf(statement.text);
  let prepared = preparedOn.get(client);
  if (!prepared) preparedOn.set(client, (prepared = new Set()));
  if (!prepared.has(name)) {
    await client.query(`PREPARE ${name} AS ${statement.text}`);
    prepared.add(name);
  }
  return statement.values.length ? `EXECUTE ${name}(${statement.values.map(sqlLiteral).join(', ')})` : `EXECUTE ${name}`;
}

/**
 * A scalar as the text PostgreSQL reads it; an error for anything else, and for text with a NUL character, which no
 * query can carry (input refuses it long before: docs/errors.md).
 */
function scalarText(value: unknown): string {
  if (typeof value === 'string') {
    if (value.includes('\0')) throw new Error('sqlLiteral: text with a NUL character cannot be sent');
    return value;
  }
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint' || typeof value === 'boolean')
    return String(value);
  throw new Error(`sqlLiteral: ${typeof value} is not a value this statement takes`);
}

/** An element of an array literal (a scalar): double-quoted, its backslashes and quotes escaped; NULL for null. */
const arrayElement = (value: unknown): string =>
  value === null || value === undefined ? 'NULL' : `"${scalarText(value).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

/**
 * A value as an SQL literal of unknown type (the prepared statement's parameter types give it its type): text quoted
 * by node-postgres, an array of scalars as an array literal, an object as JSON, a Date in ISO 8601.
 */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (value instanceof Date) return escapeLiteral(value.toISOString());
  if (Array.isArray(value)) return escapeLiteral(`{${value.map(arrayElement).join(',')}}`);
  if (typeof value === 'object') return escapeLiteral(scalarText(JSON.stringify(value)));
  return escapeLiteral(scalarText(value));
}
