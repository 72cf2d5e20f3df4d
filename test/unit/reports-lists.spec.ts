import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { integers } from '../../src/modules/reports/reports.repository.js';

describe('integers: a list of integers as PostgreSQL writes an array in text', () => {
  it('reads back every int4 array', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -2_147_483_648, max: 2_147_483_647 })), (list) => {
        expect(integers(`{${list.join(',')}}`)).toEqual(list);
      }),
    );
  });

  it('reads the empty list and a single value', () => {
    expect(integers('{}')).toEqual([]);
    expect(integers('{-7}')).toEqual([-7]);
    expect(integers('{0,10,-300}')).toEqual([0, 10, -300]);
  });
});
