import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type GateStage, type Matchable, matchRead, planStage, searchKeys } from '../../src/modules/gate/matching.js';
import { normalizePlate, plateFold, plateKey } from '../../src/modules/gate/plates.js';

const AT = new Date('2026-11-29T10:00:00Z');
let counter = 0;
const appointment = (plate: string | null, fields: Partial<Matchable> = {}): Matchable => ({
  id: `a${++counter}`,
  status: 'SCHEDULED',
  license_plate: plate,
  window_start: new Date('2026-11-29T09:00:00Z'),
  window_end: new Date('2026-11-29T11:00:00Z'),
  start_tolerance: 0,
  end_tolerance: 0,
  ...fields,
});
const read = (plate: string, confidence = 0.95, candidates?: { plate: string; confidence: number }[]) => ({
  plate,
  confidence,
  candidates,
  read_at: AT,
});

describe('plate keys', () => {
  it.each([
    ['abc-1234', 'ABC1234', 'ABC1234'],
    [' ABC.1C34 ', 'ABC1C34', 'ABC1234'],
    ['ABC1J34', 'ABC1J34', 'ABC1934'],
    ['ABC1K34', 'ABC1K34', 'ABC1K34'],
    ['XY-123', 'XY123', 'XY123'],
    ['çab1234', 'çAB1234', 'çAB1234'],
  ])('%s normalises to %s, its key %s', (plate, normal, key) => {
    expect(normalizePlate(plate)).toBe(normal);
    expect(plateKey(plate)).toBe(key);
  });

  it('folds look-alikes after the Mercosul spelling is brought to the old one', () => {
    expect(plateFold('ABC1C34')).toBe('A8C1234');
    expect(plateFold('O0QDILBSZG')).toBe('0000118526');
    expect(plateFold('BOS1234')).toBe(plateFold('805 1234'));
  });

  it.each([
    ['BRA2E19', '8RA2E19', 'BRA2419', '8RA2419'],
    ['KMN4B21', 'KMN4821', 'KMN4121', 'KMN4121'],
    ['KMN4I21', 'KMN4121', 'KMN4821', 'KMN4121'],
    ['ABC1D34', 'ABC1034', 'ABC1334', 'A8C1034'],
    ['ABC1G34', 'ABC1634', 'A8C1634', 'A8C1634'],
  ])('%s, its look-alike %s and its other spelling %s fold alike, to %s', (plate, lookalike, other, fold) => {
    for (const p of [plate, lookalike, other]) expect(plateFold(p)).toBe(fold);
  });

  it('folds the fifth character only on a plate of Brazil’s shape', () => {
    expect(plateFold('AB123CD')).toBe('A8123C0');
    expect(plateFold('XY-123')).toBe('XY123');
    expect(plateFold('ABC12345')).toBe('A8C12345');
  });
});

describe('matchRead: the table', () => {
  const cases: [
    string,
    () => { read: ReturnType<typeof read>; stage?: GateStage; list: Matchable[]; expected: string; candidates?: number },
  ][] = [
    ['an exact plate matches', () => ({ read: read('ABC1234'), list: [appointment('ABC-1234')], expected: 'match' })],
    ['the Mercosul spelling matches the old', () => ({ read: read('ABC1C34'), list: [appointment('ABC1234')], expected: 'match' })],
    ['the old spelling matches the Mercosul', () => ({ read: read('abc 1234'), list: [appointment('ABC1C34')], expected: 'match' })],
    [
      'an alternative reading matches',
      () => ({ read: read('ABC1Z34', 0.5, [{ plate: 'ABC1234', confidence: 0.93 }]), list: [appointment('ABC1234')], expected: 'match' }),
    ],
    [
      'two eligible appointments are ambiguous',
      () => ({ read: read('ABC1234'), list: [appointment('ABC1234'), appointment('ABC1C34')], expected: 'ambiguous', candidates: 2 }),
    ],
    [
      'a confidence below the threshold is low_confidence',
      () => ({ read: read('ABC1234', 0.89), list: [appointment('ABC1234')], expected: 'low_confidence' }),
    ],
    [
      'ambiguous comes before low_confidence',
      () => ({ read: read('ABC1234', 0.1), list: [appointment('ABC1234'), appointment('ABC1234')], expected: 'ambiguous' }),
    ],
    [
      'an exit of a SCHEDULED one is wrong_status',
      () => ({ read: read('ABC1234'), stage: 'exit', list: [appointment('ABC1234')], expected: 'wrong_status' }),
    ],
    [
      'low_confidence comes before wrong_status',
      () => ({ read: read('ABC1234', 0.2), stage: 'exit', list: [appointment('ABC1234')], expected: 'low_confidence' }),
    ],
    [
      'a look-alike alone is lookalike',
      () => ({ read: read('A8C1234'), list: [appointment('ABC1234')], expected: 'lookalike', candidates: 1 }),
    ],
    [
      'an exact match outside its window is outside_window',
      () => ({
        read: read('ABC1234'),
        list: [appointment('ABC1234', { window_start: new Date('2026-11-29T12:00:00Z'), window_end: new Date('2026-11-29T13:00:00Z') })],
        expected: 'outside_window',
      }),
    ],
    [
      'the tolerances widen the window',
      () => ({
        read: read('ABC1234'),
        list: [appointment('ABC1234', { window_start: new Date('2026-11-29T10:30:00Z'), window_end: null, start_tolerance: 30 })],
        expected: 'match',
      }),
    ],
    [
      'lookalike comes before outside_window',
      () => ({
        read: read('ABC1234'),
        list: [appointment('A8C1234'), appointment('ABC1234', { window_start: new Date('2026-11-29T12:00:00Z'), window_end: null })],
        expected: 'lookalike',
        candidates: 2,
      }),
    ],
    [
      'an exact eligible match wins over look-alikes',
      () => ({ read: read('ABC1234'), list: [appointment('A8C1234'), appointment('ABC1234')], expected: 'match' }),
    ],
    [
      'a Mercosul plate read with a look-alike of its first letter is lookalike',
      () => ({ read: read('8RA2E19'), list: [appointment('BRA2E19')], expected: 'lookalike', candidates: 1 }),
    ],
    [
      'a Mercosul fifth letter read as its look-alike digit is lookalike, in either stored spelling',
      () => ({ read: read('KMN4821'), list: [appointment('KMN4B21'), appointment('KMN4121')], expected: 'lookalike', candidates: 2 }),
    ],
    [
      'an old plate read with a Mercosul fifth letter of another digit is lookalike',
      () => ({ read: read('ABC1D34'), list: [appointment('ABC1034')], expected: 'lookalike', candidates: 1 }),
    ],
    ['nothing alike is no_match', () => ({ read: read('XYZ9999'), list: [appointment('ABC1234')], expected: 'no_match', candidates: 0 })],
    [
      'completed and deleted appointments are not eligible',
      () => ({
        read: read('ABC1234'),
        list: [appointment('ABC1234', { status: 'COMPLETED' }), appointment('ABC1234', { status: 'DELETED' })],
        expected: 'no_match',
      }),
    ],
    ['an appointment without a plate never matches', () => ({ read: read('ABC1234'), list: [appointment(null)], expected: 'no_match' })],
    [
      'an appointment without a window is always admissible',
      () => ({ read: read('ABC1234'), list: [appointment('ABC1234', { window_start: null, window_end: null })], expected: 'match' }),
    ],
  ];
  it.each(cases)('%s', (_name, make) => {
    const { read: r, stage = 'arrival', list, expected, candidates } = make();
    const decision = matchRead(r, stage, list, 0.9);
    expect(decision.kind === 'match' ? 'match' : decision.reason).toBe(expected);
    if (candidates !== undefined && decision.kind === 'refer') expect(decision.candidates).toHaveLength(candidates);
  });

  it('finds its appointments by the keys of every reading', () => {
    expect(searchKeys(read('ABC1C34', 0.9, [{ plate: 'A8C-1234', confidence: 0.4 }]))).toEqual({
      keys: ['ABC1234', 'A8C1234'],
      folds: ['A8C1234'],
    });
    expect(searchKeys(read('KMN4821', 0.9, [{ plate: '8RA2E19', confidence: 0.4 }]))).toEqual({
      keys: ['KMN4821', '8RA2E19'],
      folds: ['KMN4121', '8RA2419'],
    });
  });
});

describe('stages per status', () => {
  it.each([
    ['arrival', 'SCHEDULED', { handshake: true, move: null, stamp: 'arrived_at' }],
    ['arrival', 'CHECKED_IN', { handshake: false, move: null, stamp: 'arrived_at' }],
    ['arrival', 'ON_GOING', { handshake: false, move: null, stamp: 'arrived_at' }],
    ['entry', 'SCHEDULED', { handshake: true, move: 'ON_GOING', stamp: 'entered_at' }],
    ['entry', 'CHECKED_IN', { handshake: false, move: 'ON_GOING', stamp: 'entered_at' }],
    ['entry', 'ON_GOING', { handshake: false, move: null, stamp: 'entered_at' }],
    ['exit', 'SCHEDULED', null],
    ['exit', 'CHECKED_IN', { handshake: false, move: 'COMPLETED', stamp: 'departed_at' }],
    ['exit', 'ON_GOING', { handshake: false, move: 'COMPLETED', stamp: 'departed_at' }],
    ['arrival', 'COMPLETED', null],
    ['entry', 'DELETED', null],
  ] as const)('%s of %s', (stage, status, plan) => {
    expect(planStage(stage, status)).toEqual(plan);
  });
});

/** A Brazilian plate in the old form (LLLNNNN) without look-alike letters, and its Mercosul spelling. */
const LETTERS = 'ACEFHJKMNPRTUVWXY'.split('');
const oldPlate = fc
  .tuple(
    fc.array(fc.constantFrom(...LETTERS), { minLength: 3, maxLength: 3 }),
    fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 4, maxLength: 4 }),
  )
  .map(([letters, digits]) => letters.join('') + digits.join(''));
const mercosulOf = (plate: string) => plate.slice(0, 4) + String.fromCharCode(65 + Number(plate[4])) + plate.slice(5);
/** Any spelling of a plate: separators anywhere, any case. */
const spelling = (plate: string) =>
  fc
    .tuple(
      fc.array(fc.constantFrom('', ' ', '-', '.', ' - '), { minLength: plate.length + 1, maxLength: plate.length + 1 }),
      fc.array(fc.boolean(), { minLength: plate.length, maxLength: plate.length }),
    )
    .map(
      ([separators, lower]) =>
        plate
          .split('')
          .map((c, i) => separators[i] + (lower[i] ? c.toLowerCase() : c))
          .join('') + separators[plate.length],
    );

/** Any valid Brazilian plate, look-alike letters included: old (LLLNNNN) or Mercosul (LLLNLNN). */
const anyPlate = fc
  .tuple(
    fc.array(fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'), { minLength: 3, maxLength: 3 }),
    fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 4, maxLength: 4 }),
    fc.boolean(),
  )
  .map(([letters, digits, mercosul]) => {
    const plate = letters.join('') + digits.join('');
    return mercosul ? mercosulOf(plate) : plate;
  });
/** Each look-alike pair both ways: what a camera may read for a character. */
const MISREADS = Object.entries({ O: '0', Q: '0', D: '0', I: '1', L: '1', B: '8', S: '5', Z: '2', G: '6' }).flatMap(([letter, digit]) => [
  [letter, digit],
  [digit, letter],
]);
/** The plate with one character read as its look-alike, if it has one. */
const misreadOf = (plate: string) =>
  fc.constantFrom(
    ...plate
      .split('')
      .flatMap((c, at) => MISREADS.filter(([from]) => from === c).map(([, to]) => plate.slice(0, at) + to + plate.slice(at + 1))),
  );

describe('matchRead: properties', () => {
  it('a plate matches itself in any spelling of separators and case', () => {
    fc.assert(
      fc.property(
        oldPlate.chain((plate) => fc.tuple(fc.constant(plate), spelling(plate), spelling(plate))),
        ([, stored, seen]) => {
          const decision = matchRead(read(seen), 'arrival', [appointment(stored)], 0.9);
          expect(decision.kind).toBe('match');
        },
      ),
    );
  });

  it('the old and the Mercosul spellings match, both ways', () => {
    fc.assert(
      fc.property(oldPlate, fc.boolean(), (plate, storedOld) => {
        const [stored, seen] = storedOld ? [plate, mercosulOf(plate)] : [mercosulOf(plate), plate];
        expect(plateKey(stored)).toBe(plateKey(seen));
        expect(matchRead(read(seen), 'arrival', [appointment(stored)], 0.9).kind).toBe('match');
      }),
    );
  });

  it('a look-alike alone never matches automatically, whatever the confidence', () => {
    const confusable = Object.entries({ O: '0', Q: '0', D: '0', I: '1', L: '1', B: '8', S: '5', Z: '2', G: '6' });
    fc.assert(
      fc.property(
        oldPlate,
        fc.integer({ min: 0, max: 2 }),
        fc.constantFrom(...confusable),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom<GateStage>('arrival', 'entry', 'exit'),
        (plate, at, [letter, digit], confidence, stage) => {
          // The stored plate has a look-alike letter where the camera read its digit.
          const stored = plate.slice(0, at) + letter + plate.slice(at + 1);
          const seen = plate.slice(0, at) + digit + plate.slice(at + 1);
          const decision = matchRead(read(seen, confidence), stage, [appointment(stored, { status: 'CHECKED_IN' })], 0.9);
          expect(decision).toMatchObject({ kind: 'refer', reason: 'lookalike' });
        },
      ),
    );
  });

  it('any one look-alike misreading of a valid plate, old or Mercosul, finds the plate as a candidate', () => {
    fc.assert(
      fc.property(
        anyPlate
          .filter((plate) => plate.split('').some((c) => MISREADS.some(([from]) => from === c)))
          .chain((plate) => fc.tuple(fc.constant(plate), misreadOf(plate))),
        fc.constantFrom<GateStage>('arrival', 'entry', 'exit'),
        ([stored, seen], stage) => {
          expect(plateFold(seen)).toBe(plateFold(stored));
          const original = appointment(stored, { status: 'CHECKED_IN' });
          const decision = matchRead(read(seen, 1), stage, [original], 0.9);
          // G for 6 in the fifth place is the Mercosul spelling of the same plate: that one matches.
          if (plateKey(seen) === plateKey(stored)) expect(decision.kind).toBe('match');
          else expect(decision).toEqual({ kind: 'refer', reason: 'lookalike', candidates: [original] });
        },
      ),
    );
  });
});
