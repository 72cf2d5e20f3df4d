import { Readable } from 'node:stream';
import pg from 'pg';

/** Bytes handed on at a time: many rows to a chunk, one allocation each. */
const CHUNK = 256 * 1024;

/** A statement with its values bound, never written into its text. */
export interface BoundStatement {
  text: string;
  values: unknown[];
}

/**
 * The bytes of a `COPY … TO STDOUT` as a stream, for downloads whose rows PostgreSQL writes whole (docs/audit.md#export).
 *
 * Read on a connection of its own, opened with the pool's settings (so a long download never holds a connection the
 * requests need), in one transaction: `setup` first (a COPY takes no parameters: `setup` puts them where the COPY reads
 * them, `set_config(…, true)`), then the COPY. The rows are copied into chunks as they arrive and handed on; while the
 * reader is behind, the connection's socket is not read, so memory stays flat however many rows there are. A reader
 * that goes away closes the connection, which ends the COPY on the server.
 */
export function copyOut(pool: pg.Pool, setup: BoundStatement, copy: string): Readable {
  const client = new pg.Client(pool.options);
  // A connection closed under a running COPY (the reader gone) fails its query; that failure is handled below.
  client.on('error', () => undefined);
  const socket = () => (client as unknown as { connection: { stream: NodeJS.ReadableStream & { destroy(): void } } }).connection.stream;
  let finished = false;
  let chunk = Buffer.allocUnsafe(CHUNK);
  let used = 0;

  const out = new Readable({
    highWaterMark: 4 * CHUNK,
    read: () => void socket().resume(),
    destroy: (error, callback) => {
      if (!finished) socket().destroy();
      callback(error);
    },
  });
  const flush = () => {
    if (!used) return;
    const room = out.push(chunk.subarray(0, used));
    chunk = Buffer.allocUnsafe(CHUNK);
    used = 0;
    if (!room) socket().pause();
  };
  const onData = ({ chunk: row }: { chunk: Uint8Array }) => {
    for (let at = 0; at < row.length;) {
      const n = Math.min(row.length - at, CHUNK - used);
      chunk.set(row.subarray(at, at + n), used);
      used += n;
      at += n;
      if (used === CHUNK) flush();
    }
  };

  void (async () => {
    try {
      await client.connect();
      const connection = (client as unknown as { connection: NodeJS.EventEmitter }).connection;
      await client.query('START TRANSACTION READ ONLY');
      await client.query(setup.text, setup.values);
      connection.on('copyData', onData);
      await client.query(copy);
      await client.query('COMMIT');
      finished = true;
      flush();
      out.push(null);
    } catch (error) {
      finished = true;
      out.destroy(error as Error);
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return out;
}
