import { describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { canCopyOut } from '../../src/database/copy-out.js';

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
