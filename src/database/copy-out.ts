import net from 'node:net';
import type { Writable } from 'node:stream';
import pg from 'pg';

/** A statement with its values bound, never written into its text. */
export interface BoundStatement {
  text: string;
  values: unknown[];
}

/** Bytes written to the target at a time, and how many such chunks may wait to be written before reading stops. */
export const CHUNK = 256 * 1024;
export const CHUNKS = 4;
/** The one buffer the COPY's connection reads into. */
const READ_BUFFER = 64 * 1024;

const [COPY_DATA, ERROR_RESPONSE, READY_FOR_QUERY] = [0x64, 0x45, 0x5a];
/** Copies of at most this many bytes are made byte by byte, cheaper than a call into the runtime. */
const SMALL = 64;
const NULL = Buffer.from('null');

/**
 * Whether `copyOutTo` can read the pool's connections: not over TLS, which reads the socket into buffers of its own
 * (a connection string's `sslmode`, or the pool's `ssl`).
 */
export function canCopyOut(pool: pg.Pool): boolean {
  const probe = new pg.Client(pool.options) as unknown as { connectionParameters: { ssl: unknown } };
  return !probe.connectionParameters.ssl;
}

/**
 * Turns one row of a `COPY … TO STDOUT (FORMAT binary)` into the bytes it stands for: `fields[2i]` and `fields[2i + 1]`
 * are where field `i` starts and ends in `row` (-1 and -1 for NULL), the bytes are written to `out`.
 */
export type RowWriter = (row: Buffer, fields: Int32Array, out: Output) => void;

/**
 * Writes the rows of a `COPY … TO STDOUT (FORMAT binary)` to `target`, each turned into its bytes by `rows`, for
 * downloads (docs/audit.md#reading).
 *
 * On a connection of its own, opened with the pool's settings (a long download never holds a connection the requests
 * need), in one read-only transaction: `setup` first (a COPY takes no parameters: `setup` puts them where the COPY
 * reads them, with `set_config(…, true)`), then the COPY. Memory stays flat however many rows: the connection reads
 * into one buffer of its own (node-postgres's parser, which makes a buffer per read and an object per row, is set
 * aside while the COPY runs), the rows are copied into a few chunks that are reused once written,
 * and while none is free the connection is not read, so PostgreSQL waits. A target closed early (the reader gone,
 * the service stopping) closes the connection, which ends the COPY on the server. Resolves when every byte is written.
 */
export async function copyOutTo(pool: pg.Pool, setup: BoundStatement, copy: string, target: Writable, rows: RowWriter): Promise<void> {
  const input = Buffer.allocUnsafe(READ_BUFFER);
  /** Where the connection's bytes go while the COPY runs; node-postgres's parser otherwise. */
  let sink: ((length: number) => boolean) | null = null;
  let socket: net.Socket | undefined;
  const rawSocket = () =>
    (socket = new net.Socket({
      onread: {
        buffer: input,
        callback: (length: number) => (sink ? sink(length) : (socket!.emit('data', Buffer.from(input.subarray(0, length))), true)),
      },
    } as net.SocketConstructorOpts));
  const client = new pg.Client({ ...pool.options, stream: rawSocket });
  const connection = (client as unknown as { connection: NodeJS.EventEmitter & { stream: net.Socket } }).connection;
  // A connection closed under a running COPY fails its query; that failure is what this function rejects with.
  client.on('error', () => undefined);
  let finished = false;
  const closed = () => {
    if (!finished) connection.stream.destroy();
  };
  target.once('close', closed);

  let paused = false;
  const chunks = new Output(target, () => {
    if (paused) {
      paused = false;
      connection.stream.resume();
    }
  });
  try {
    await client.connect();
    await client.query('START TRANSACTION READ ONLY');
    await client.query(setup.text, setup.values);
    await new Promise<void>((resolve, reject) => {
      const reader = new CopyReader(input, chunks, rows);
      sink = (length) => {
        let done: ReturnType<CopyReader['read']>;
        try {
          done = reader.read(length);
        } catch (error) {
          // A row the writer could not read: the COPY is abandoned with its connection.
          sink = () => false;
          reject(error instanceof Error ? error : new Error(String(error)));
          connection.stream.destroy();
          return false;
        }
        if (done) {
          sink = null;
          if (done.rest.length) socket!.emit('data', Buffer.from(done.rest));
          if (done.error) reject(done.error);
          else resolve();
          return true;
        }
        if (chunks.full) paused = true;
        return !paused;
      };
      socket!.write(queryMessage(copy));
      socket!.once('close', () => reject(new Error('the connection closed during the COPY')));
    });
    await client.query('COMMIT');
    finished = true;
    await chunks.end();
  } finally {
    finished = true;
    target.off('close', closed);
    await client.end().catch(() => undefined);
  }
}

/** A simple-query message of the frontend protocol: `Q`, its length, the statement's text ending in a zero byte. */
function queryMessage(text: string): Buffer {
  const body = Buffer.from(`${text}\0`);
  const header = Buffer.allocUnsafe(5);
  header[0] = 0x51;
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

/**
 * The backend's messages after a COPY's query, read from the connection's buffer as they come: each CopyData whole to
 * the rows (one row of a binary COPY), the rest skipped but an ErrorResponse, until ReadyForQuery.
 */
class CopyReader {
  private readonly header = Buffer.alloc(5);
  private headerLength = 0;
  private type = 0;
  private left = 0;
  private message: Buffer | null = null;
  private messageLength = 0;
  private error: Error | null = null;
  /** A row that spans two reads, gathered here (grown to the longest such row, reused). */
  private spill: Buffer | null = null;
  private readonly binary: BinaryRows;

  constructor(
    private readonly input: Buffer,
    out: Output,
    rows: RowWriter,
  ) {
    this.binary = new BinaryRows(rows, out);
  }

  /** Reads `length` bytes of the input; answers when ReadyForQuery came (with the bytes after it, and any error). */
  read(length: number): { rest: Uint8Array; error: Error | null } | null {
    const input = this.input;
    let at = 0;
    while (at < length) {
      if (this.headerLength < 5) {
        if (this.headerLength === 0 && length - at >= 5) {
          this.type = input[at];
          this.left = input.readInt32BE(at + 1) - 4;
          at += 5;
          this.headerLength = 5;
        } else {
          const n = Math.min(5 - this.headerLength, length - at);
          input.copy(this.header, this.headerLength, at, at + n);
          this.headerLength += n;
          at += n;
          if (this.headerLength < 5) break;
          this.type = this.header[0];
          this.left = this.header.readInt32BE(1) - 4;
        }
        this.messageLength = 0;
        if (this.type === ERROR_RESPONSE) this.message = Buffer.allocUnsafe(this.left);
        else if (this.type === COPY_DATA) {
          if (length - at >= this.left) {
            // The whole row is in this read: written from the input itself.
            this.binary.row(input, at, at + this.left);
            at += this.left;
            this.left = 0;
            this.headerLength = 0;
            continue;
          }
          if (!this.spill || this.spill.length < this.left) this.spill = Buffer.allocUnsafe(Math.max(this.left, READ_BUFFER));
          this.message = this.spill;
        }
      }
      const n = Math.min(this.left, length - at);
      if (this.message) this.messageLength += input.copy(this.message, this.messageLength, at, at + n);
      at += n;
      this.left -= n;
      if (this.left > 0) break;
      this.headerLength = 0;
      if (this.type === ERROR_RESPONSE) this.error = backendError(this.message!);
      else if (this.message) this.binary.row(this.message, 0, this.messageLength);
      this.message = null;
      if (this.type === READY_FOR_QUERY) return { rest: input.subarray(at, length), error: this.error };
    }
    return null;
  }
}

/** The binary COPY format's signature, which starts its first row (then flags and the header extension's length). */
const BINARY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/** The rows of a binary COPY, each split into its fields and handed to the row writer. */
class BinaryRows {
  private started = false;
  private fields = new Int32Array(32);

  constructor(
    private readonly write: RowWriter,
    private readonly out: Output,
  ) {}

  /** One CopyData message, `row[start, end)`: a tuple (the first one after the header), or the trailer. */
  row(row: Buffer, start: number, end: number): void {
    let at = start;
    if (!this.started) {
      if (end - at < 19 || !row.subarray(at, at + 11).equals(BINARY_SIGNATURE)) throw new Error('not a binary COPY');
      at += 19 + row.readInt32BE(at + 15);
      this.started = true;
      if (at >= end) return;
    }
    const count = row.readInt16BE(at);
    if (count < 0) return; // the trailer
    at += 2;
    if (this.fields.length < count * 2) this.fields = new Int32Array(count * 2);
    const fields = this.fields;
    for (let i = 0; i < count; i++) {
      const length = row.readInt32BE(at);
      at += 4;
      if (length < 0) {
        fields[2 * i] = -1;
        fields[2 * i + 1] = -1;
      } else {
        fields[2 * i] = at;
        fields[2 * i + 1] = at + length;
        at += length;
      }
    }
    if (at !== end) throw new Error('a binary COPY row of unexpected length');
    this.write(row, fields, this.out);
  }
}

/** An ErrorResponse's fields (a type byte, then text ending in a zero byte, each) as an Error with its SQLSTATE. */
function backendError(message: Buffer): Error {
  const fields: Record<string, string> = {};
  for (let at = 0; at < message.length && message[at] !== 0;) {
    const end = message.indexOf(0, at + 1);
    fields[String.fromCharCode(message[at])] = message.toString('utf8', at + 1, end);
    at = end + 1;
  }
  return Object.assign(new Error(fields.M ?? 'the COPY failed'), { code: fields.C });
}

/** Bytes gathered into a few chunks of CHUNK bytes, each written to the target when full and reused once written. */
export class Output {
  private readonly free: Buffer[] = [];
  private chunk: Buffer | null = null;
  private used = 0;
  private made = 0;

  constructor(
    private readonly target: Writable,
    private readonly onFree: () => void,
  ) {}

  /**
   * Whether no chunk is left to take once the one being filled is written: the reader is behind, and the next read
   * would make a chunk more (the one being filled does not count as room: a read fills it and takes the next).
   */
  get full(): boolean {
    return this.free.length === 0 && this.made >= CHUNKS;
  }

  /** Copies `bytes[start, end)` (a chunk beyond CHUNKS is made when none is free: the caller stops reading at `full`). */
  put(bytes: Buffer, start: number, end: number): void {
    if (end - start <= SMALL && this.room(end - start)) {
      const chunk = this.chunk!;
      let used = this.used;
      for (let i = start; i < end; i++) chunk[used++] = bytes[i];
      this.used = used;
      return;
    }
    while (start < end) {
      if (!this.chunk) this.take();
      const n = Math.min(end - start, CHUNK - this.used);
      // On Node 24, Buffer#copy allocates nothing; `set` needs a view of the source: an object a part, 2 a line.
      bytes.copy(this.chunk!, this.used, start, start + n);
      this.used += n;
      start += n;
      if (this.used === CHUNK) this.flush();
    }
  }

  /**
   * Writes UTF-8 text, `bytes[start, end)`, as a JSON string (`null` for a NULL field, `start` -1), escaped as
   * `JSON.stringify` escapes: only `"`, `\` and the control characters.
   */
  jsonString(bytes: Buffer, start: number, end: number): void {
    if (start < 0) return this.put(NULL, 0, NULL.length);
    if (this.room(end - start + 2)) {
      const chunk = this.chunk!;
      let used = this.used;
      chunk[used++] = 0x22;
      let i = start;
      for (; i < end; i++) {
        const c = bytes[i];
        if (c < 0x20 || c === 0x22 || c === 0x5c) break;
        chunk[used++] = c;
      }
      if (i === end) {
        chunk[used++] = 0x22;
        this.used = used;
        return;
      }
    }
    const escaped = Buffer.from(JSON.stringify(bytes.toString('utf8', start, end)));
    this.put(escaped, 0, escaped.length);
  }

  /** Writes what is gathered, then ends the target once everything is written. */
  end(): Promise<void> {
    this.flush();
    return new Promise((resolve, reject) => this.target.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }

  /** Whether `n` bytes fit in the current chunk, taking a new one when they do not; false when they exceed a chunk. */
  private room(n: number): boolean {
    if (this.chunk && CHUNK - this.used >= n) return true;
    if (n > CHUNK) return false;
    this.flush();
    this.take();
    return true;
  }

  private take(): void {
    this.chunk = this.free.pop() ?? null;
    if (!this.chunk) {
      this.chunk = Buffer.allocUnsafe(CHUNK);
      this.made += 1;
    }
  }

  private flush(): void {
    const chunk = this.chunk;
    if (!chunk || !this.used) return;
    this.chunk = null;
    this.target.write(chunk.subarray(0, this.used), () => {
      this.free.push(chunk);
      this.onFree();
    });
    this.used = 0;
  }
}
