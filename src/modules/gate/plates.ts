/*
 * How plates compare (docs/gate.md#matching). Pure functions; their SQL twins are `gate_plate_norm`,
 * `gate_plate_key` (migration Gate1763930000000) and `gate_plate_fold` (migration GatePlateFold1763945000000), which
 * the indexes of appointments use: keep the two in step.
 */

/** Spaces, dots and dashes removed, ASCII letters in upper case (nothing else changes: the SQL twin does the same). */
export function normalizePlate(plate: string): string {
  return plate.replace(/[ .-]/g, '').replace(/[a-z]/g, (c) => c.toUpperCase());
}

/** A Mercosul plate: three letters, a digit, a letter A..J (the old plate's digit), two digits. */
const MERCOSUL = /^[A-Z]{3}[0-9][A-J][0-9]{2}$/;

/**
 * The plate as the matching compares it: normalised, and a Mercosul spelling brought to the old one (`ABC1C34` →
 * `ABC1234`: the fifth character's letter at index d of A..J is the digit d). So `ABC1234`, `abc-1234` and
 * `ABC 1C34` have one key.
 */
export function plateKey(plate: string): string {
  const p = normalizePlate(plate);
  return MERCOSUL.test(p) ? `${p.slice(0, 4)}${p.charCodeAt(4) - 65}${p.slice(5)}` : p;
}

/** The look-alike pairs a camera confuses: each letter folds to its digit. */
export const LOOKALIKES: Readonly<Record<string, string>> = { O: '0', Q: '0', D: '0', I: '1', L: '1', B: '8', S: '5', Z: '2', G: '6' };

const LOOKALIKE_LETTERS = Object.keys(LOOKALIKES).join('');
const LOOKALIKE_DIGITS = Object.values(LOOKALIKES).join('');

/**
 * The fifth character of a plate of Brazil's shape, folded: each group is closed under the Mercosul letters (A..J for
 * 0..9) and the look-alike pairs, and folds to its first digit. D is 0's look-alike and Mercosul's 3, so 0, 3, A, D,
 * O, Q are one; B is 8's look-alike and Mercosul's 1, I is 1's look-alike and Mercosul's 8, so 1, 8, B, I, L are one;
 * then 2, C, Z; 4, E; 5, F, S; 6, G; 7, H; 9, J. The SQL twin translates with these same two strings.
 */
const FIFTH_FROM = 'ADOQ3BIL8CZEFSGHJ';
const FIFTH_TO = '00000111122455679';

/** A plate of Brazil's shape once look-alike letters are folded: three letters or digits, a digit, any, two digits. */
const BRAZIL_SHAPE = /^[A-Z0-9]{3}[0-9][A-Z0-9][0-9]{2}$/;

/** Each character of `from` in the text replaced by the one at its index in `to` (SQL's `translate`, ASCII `from`). */
const translate = (text: string, from: string, to: string) => text.replace(new RegExp(`[${from}]`, 'g'), (c) => to[from.indexOf(c)]);

/**
 * The plate with look-alike letters folded to their digits and, on a plate of Brazil's shape, its fifth character to
 * its group (`FIFTH_FROM`): the old and Mercosul spellings of a plate fold alike, and so does any one look-alike
 * misreading of either (`8RA2E19` and `BRA2E19`, `KMN4821` and `KMN4B21`). Plates equal only under it are
 * look-alikes, never decided alone.
 */
export function plateFold(plate: string): string {
  const normal = normalizePlate(plate);
  const folded = translate(normal, LOOKALIKE_LETTERS, LOOKALIKE_DIGITS);
  if (!BRAZIL_SHAPE.test(folded)) return folded;
  return `${folded.slice(0, 4)}${translate(normal[4], FIFTH_FROM, FIFTH_TO)}${folded.slice(5)}`;
}

/** Whether a plate has something to compare once normalised (a letter or a digit). */
export const comparablePlate = (plate: string) => /[A-Za-z0-9]/.test(plate);
