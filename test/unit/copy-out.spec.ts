import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import pg from 'pg';
import { canCopyOut, CHUNK, CHUNKS, copyOutTo, Output } from '../../src/database/copy-out.js';
import { createTestDatabase } from '../setup/databases.js';

describe('canCopyOut', () => {
  const url = 'postgresql://postgres@127.0.0.1:5432/gate';
  it('reads a plain connection into its own buffer, not one over TLS', async () => {
    const pools = [
      new pg.Pool({ connectionString: url }),
      new pg.Pool({ connectionString: `${url}?sslmode=require` }),
      new pg.Pool({ connectionString: url, ssl: { rejectUnauthorized: false } }),
    ];
    expect(pools.map(canCopyOut)).toEqual([true, false, false]);
    await Promise.all(pools.map((pool) => pool.end()));
  });
});

describe('Output', () => {
  /** Everything written, once ended (each chunk copied as written: chunks are reused). */
  const collect = (write: (out: Output) => void): Promise<string> => {
    const parts: Buffer[] = [];
    const target = new Writable({
      write(chunk: Buffer, _encoding, done) {
        parts.push(Buffer.from(chunk));
        setImmediate(done);
      },
    });
    const out = new Output(target, () => undefined);
    write(out);
    return out.end().then(() => Buffer.concat(parts).toString('utf8'));
  };

  it('writes text as JSON.stringify does, escaped or not, a NULL as null, across chunks', async () => {
    const texts = [
      '',
      'plain',
      'ü€😀',
      'a"b',
      'back\\slash',
      'tab\tline\nret\r',
      '\u0001\u001f\u007f',
      'x'.repeat(300_000),
      `"${'\u0002'.repeat(70_000)}`,
    ];
    const written = await collect((out) => {
      for (const text of texts) {
        const bytes = Buffer.from(`<${text}>`);
        out.jsonString(bytes, 1, bytes.length - 1);
        out.put(Buffer.from(','), 0, 1);
      }
      out.jsonString(Buffer.alloc(0), -1, -1);
    });
    expect(written).toBe(`${texts.map((text) => JSON.stringify(text)).join(',')},null`);
  });

  it('copies the bytes of a slice from where it starts, short or long, across chunks', async () => {
    const source = Buffer.from(Array.from({ length: 100_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(''));
    const slices = [
      [3, 10],
      [7, 7 + 65],
      [1_000, 1_000 + 3_000],
      [5, 5 + 90_000],
      [11, 11 + 64],
    ];
    const rounds = 5; // more than one chunk's worth in all, so slices start in one chunk and end in the next
    const written = await collect((out) => {
      for (let round = 0; round < rounds; round++) for (const [start, end] of slices) out.put(source, start, end);
    });
    const expected = slices.map(([start, end]) => source.toString('utf8', start, end)).join('');
    expect(written).toBe(expected.repeat(rounds));
  });
});

describe('copyOutTo', () => {
  it('stops reading while every chunk waits for a slow reader: what waits stays within its chunks', async () => {
    const database = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      let waiting = 0;
      let mostWaiting = 0;
      let bytes = 0;
      const target = new Writable({
        write(chunk: Buffer, _encoding, done) {
          bytes += chunk.length;
          setTimeout(done, 2);
        },
      });
      const write = target.write.bind(target);
      // What the target was given and has not yet taken: written, its callback not yet called.
      target.write = ((chunk: Buffer, callback: () => void) => {
        waiting += chunk.length;
        mostWaiting = Math.max(mostWaiting, waiting);
        return write(chunk, () => {
          waiting -= chunk.length;
          callback();
        });
      }) as typeof target.write;
      const rows = 40_000;
      const line = 200;
      const newline = Buffer.from('\n');
      await copyOutTo(
        pool,
        { text: 'SELECT 1', values: [] },
        `COPY (SELECT repeat('x', ${line - 1}) FROM generate_series(1, ${rows})) TO STDOUT (FORMAT binary)`,
        target,
        (row, fields, out) => {
          out.put(row, fields[0], fields[1]);
          out.put(newline, 0, 1);
        },
      );
      expect(bytes).toBe(rows * line);
      expect(mostWaiting).toBeGreaterThan(0);
      expect(mostWaiting).toBeLessThanOrEqual(CHUNKS * CHUNK);
    } finally {
      await pool.end();
      await database.drop();
    }
  });
});
