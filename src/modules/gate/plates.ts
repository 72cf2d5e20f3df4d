/*
 * How plates compare (docs/gate.md#matching). Pure functions; their SQL twins are `gate_plate_norm`,
 * `gate_plate_key` and `gate_plate_fold` (migration Gate1763930000000), which the indexes of appointments use:
 * keep the two in step.
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

/** The key with look-alike letters folded to digits: plates equal only under it are look-alikes, never decided alone. */
export function plateFold(plate: string): string {
  return plateKey(plate).replace(/[OQDILBSZG]/g, (c) => LOOKALIKES[c]);
}

/** Whether a plate has something to compare once normalised (a letter or a digit). */
export const comparablePlate = (plate: string) => /[A-Za-z0-9]/.test(plate);
