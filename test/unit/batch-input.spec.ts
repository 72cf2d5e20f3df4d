import { describe, expect, it } from '@jest/globals';
import { IsString, Length } from 'class-validator';
import { dtoItems, parseBatch, stringItems } from '../../src/common/batch/batch-input.js';
import { AppError } from '../../src/common/errors/app-error.js';

class Item {
  @IsString()
  @Length(1, 5)
  ref: string;
}

function codeOf(run: () => unknown): { code: string; details?: Record<string, unknown> } {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return { code: error.code, details: error.details };
    throw error;
  }
  throw new Error('did not throw');
}

describe('the shared batch input', () => {
  it('takes one item or an array', () => {
    expect(parseBatch({ ref: 'a' }, 10, dtoItems(Item))).toEqual([{ ref: 'a' }]);
    expect(parseBatch([{ ref: 'a' }, { ref: 'b' }], 10, dtoItems(Item)).map((i) => i.ref)).toEqual(['a', 'b']);
    expect(parseBatch('r1', 10, stringItems(100))).toEqual(['r1']);
  });

  it('refuses an empty array or no body with EMPTY_PAYLOAD', () => {
    expect(codeOf(() => parseBatch([], 10, dtoItems(Item))).code).toBe('EMPTY_PAYLOAD');
    expect(codeOf(() => parseBatch(undefined, 10, dtoItems(Item))).code).toBe('EMPTY_PAYLOAD');
  });

  it('refuses more than the maximum with BATCH_TOO_LARGE before validating items', () => {
    const error = codeOf(() => parseBatch([1, 2, 3], 2, dtoItems(Item)));
    expect(error).toEqual({ code: 'BATCH_TOO_LARGE', details: { max_batch_size: 2, received: 3 } });
  });

  it('locates every invalid item and field', () => {
    const error = codeOf(() => parseBatch([{ ref: 'ok' }, { ref: 'toolong' }, 7, { ref: 'a', extra: 1 }], 10, dtoItems(Item)));
    expect(error.code).toBe('VALIDATION_ERROR');
    const paths = (error.details!.errors as { path: string }[]).map((e) => e.path);
    expect(paths).toEqual(['[1].ref', '[2]', '[3].extra']);
  });

  it('locates a lone object without an index', () => {
    const error = codeOf(() => parseBatch({ ref: 'toolong' }, 10, dtoItems(Item)));
    expect((error.details!.errors as { path: string }[])[0].path).toBe('ref');
    expect((codeOf(() => parseBatch([5], 10, stringItems(3))).details!.errors as { path: string }[])[0].path).toBe('[0]');
  });
});
