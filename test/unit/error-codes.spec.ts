import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ERROR_CODES, ERROR_STATUS } from '../../src/common/errors/error-codes.js';

/** Guards the rule "every error code has a test that produces it": each code is expected somewhere in test/e2e. */
describe('error codes', () => {
  const e2e = readdirSync('test/e2e')
    .filter((file) => file.endsWith('.spec.ts'))
    .map((file) => readFileSync(join('test/e2e', file), 'utf8'))
    .join('\n');

  it.each(ERROR_CODES)('%s is produced by an end-to-end test', (code) => {
    expect(e2e).toMatch(new RegExp(`(code\\)?\\.toBe\\('${code}'\\)|code: '${code}'|'${code}'\\])`));
  });

  it('maps every code to an HTTP status', () => {
    for (const code of ERROR_CODES) expect(ERROR_STATUS[code]).toBeGreaterThanOrEqual(400);
  });
});
