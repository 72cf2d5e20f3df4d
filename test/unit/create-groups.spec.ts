import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../src/common/errors/app-error.js';
import { CreateGroups, type CreateWriters } from '../../src/modules/records/create-groups.js';
import type { CreateItem } from '../../src/modules/records/record-input.js';

/**
 * How CreateGroups splits a group, with writers that keep refs in memory and refuse as the records engine does
 * (unknown layout, a ref taken or twice, a refusal naming no item). Creates made in one turn go as one group, so
 * what is written together is certain here; the e2e file checks the same against PostgreSQL.
 */
function scene() {
  const stored = new Set<string>();
  const calls: string[] = [];
  const check = (items: CreateItem[]) => {
    const missing = [...new Set(items.map((item) => item.appointment.layout_ref).filter((ref) => ref !== 'card'))];
    if (missing.length) throw new AppError('INVALID_LAYOUT_REF', `missing: ${missing.join(', ')}`, { layout_refs: missing });
    const refs = items.map((item) => item.appointment.ref);
    const taken = refs.filter((ref, i) => stored.has(ref) || refs.indexOf(ref) !== i);
    if (taken.length) throw new AppError('DUPLICATE_KEY', `taken: ${taken.join(', ')}`, { refs: taken });
    if (items.some((item) => item.appointment.summary === 'refused by the database')) throw new Error('check constraint');
    if (items.some((item) => item.appointment.summary === 'unreachable')) throw Object.assign(new Error('down'), { code: 'ECONNREFUSED' });
    refs.forEach((ref) => stored.add(ref));
    return refs;
  };
  const writers: CreateWriters<string> = {
    together: (ownerId, items) => {
      calls.push(`together ${ownerId} ${items.map((item) => item.appointment.ref).join(' ')}`);
      return Promise.resolve().then(() => check(items));
    },
    alone: (ownerId, item) => {
      calls.push(`alone ${ownerId} ${item.appointment.ref}`);
      return Promise.resolve().then(() => check([item])[0]);
    },
  };
  const groups = new CreateGroups('appointment', writers, 100);
  const item = (ref: string, layout = 'card', summary = 'ok', licence = 'L1') =>
    ({
      driver: { tax_id: `tax-${ref}`, driver_license_number: licence, license_category: 'E' },
      appointment: { ref, layout_ref: layout, summary },
    }) as unknown as CreateItem;
  /** Every create at once (one turn); each answer or error, in order. */
  const atOnce = (items: CreateItem[], owner = 'owner-1') =>
    Promise.all(
      items.map((one) =>
        groups.create(owner, one).then(
          (value) => value,
          (error: Error) => (error instanceof AppError ? `${error.code} ${JSON.stringify(error.details)}` : error.message),
        ),
      ),
    );
  return { calls, item, atOnce, stored };
}

describe('CreateGroups', () => {
  it('writes the creates of one owner made at once as one group, each owner its own', async () => {
    const { calls, item, atOnce } = scene();
    const answers = await Promise.all([atOnce([item('A'), item('B'), item('C')]), atOnce([item('D')], 'owner-2')]);
    expect(answers).toEqual([['A', 'B', 'C'], ['D']]);
    expect(calls).toEqual(['together owner-1 A B C', 'alone owner-2 D']);
  });

  it('writes the group again without the items a refusal names, and those alone', async () => {
    const { calls, item, atOnce, stored } = scene();
    stored.add('TAKEN');
    const answers = await atOnce([item('A'), item('X', 'nope'), item('B'), item('TAKEN'), item('C')]);
    expect(answers).toEqual(['A', 'INVALID_LAYOUT_REF {"layout_refs":["nope"]}', 'B', 'DUPLICATE_KEY {"refs":["TAKEN"]}', 'C']);
    expect(calls).toEqual([
      'together owner-1 A X B TAKEN C',
      'together owner-1 A B TAKEN C',
      'together owner-1 A B C',
      'alone owner-1 X',
      'alone owner-1 TAKEN',
    ]);
  });

  it('sets apart a ref twice and a driver with two licences: each alone after the group, in arrival order', async () => {
    const { calls, item, atOnce } = scene();
    const licence = (ref: string, number: string) =>
      ({
        ...item(ref, 'card', 'ok', number),
        driver: { tax_id: 'same', driver_license_number: number, license_category: 'E' },
      }) as CreateItem;
    const answers = await atOnce([item('R'), item('A'), item('R'), licence('L1', 'one'), item('B'), licence('L2', 'two')]);
    expect(answers).toEqual(['R', 'A', 'DUPLICATE_KEY {"refs":["R"]}', 'L1', 'B', 'L2']);
    expect(calls).toEqual(['together owner-1 A B', 'alone owner-1 R', 'alone owner-1 R', 'alone owner-1 L1', 'alone owner-1 L2']);
  });

  it('writes every item alone, in arrival order, when a refusal names none of them', async () => {
    const { calls, item, atOnce } = scene();
    const answers = await atOnce([item('A'), item('B', 'card', 'refused by the database'), item('C')]);
    expect(answers).toEqual(['A', 'check constraint', 'C']);
    expect(calls).toEqual(['together owner-1 A B C', 'alone owner-1 A', 'alone owner-1 B', 'alone owner-1 C']);
  });

  it('answers an unreachable database to every item of the group at once', async () => {
    const { calls, item, atOnce } = scene();
    const answers = await atOnce([item('A'), item('B', 'card', 'unreachable'), item('C')]);
    expect(answers).toEqual(['down', 'down', 'down']);
    expect(calls).toEqual(['together owner-1 A B C']);
  });
});
