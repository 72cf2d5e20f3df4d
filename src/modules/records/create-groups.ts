import { Coalescer } from '../../common/batch/coalescer.js';
import { AppError } from '../../common/errors/app-error.js';
import { isDatabaseUnreachable } from '../../common/errors/database-errors.js';
import { type AuditScope, currentAuditScope, inAuditScope, sharedAuditScope } from '../../database/audit-context.js';
import type { CreateItem } from './record-input.js';

type Outcome<T> = { value: T } | { error: unknown };

/** A create waiting in a group: its item, and where it arrived among the group's. */
interface Waiting {
  item: CreateItem;
  index: number;
}

/** How an owner's creates are written: all at once, or one alone (each as its own request would be). */
export interface CreateWriters<T> {
  /** The items in one transaction, all or nothing (the bulk path): one answer per item, in order. */
  together(ownerId: string, items: CreateItem[]): Promise<T[]>;
  /** One item in a transaction of its own: the answer a lone request gets. */
  alone(ownerId: string, item: CreateItem): Promise<T>;
}

/**
 * Group commit of single-item creates (docs/benchmarks.md#single-item-creates-grouped): the creates of one owner
 * that arrive while one of its groups is being written wait and go together as the next group, through the bulk
 * path (one transaction, a fixed number of statements, one commit). Alone, a create waits one turn of the event
 * loop and is written alone.
 *
 * Each create gets the answer it would have got alone. Items that cannot share a transaction without changing
 * what the other sees (the same ref twice; one driver with different licence data) are written alone, in
 * arrival order. A group refused for some of its items (`INVALID_LAYOUT_REF`, `DUPLICATE_KEY`: their details name
 * them) is written again without them, and they alone; a refusal that names no item (capacity: which of the
 * group a slot would still take is decided one by one; an error of the database's) sends every item alone, in
 * arrival order. Only an unreachable database is every item's answer at once, as it would be alone.
 */
export class CreateGroups<T> {
  private readonly owners = new Map<string, { coalescer: Coalescer<CreateItem, Outcome<T>>; waiting: number }>();
  /** Each waiting create's audit scope (its request's): a group is written with each row's own (docs/audit.md#actors). */
  private readonly scopes = new WeakMap<CreateItem, AuditScope | undefined>();

  constructor(
    private readonly noun: string,
    private readonly writers: CreateWriters<T>,
    private readonly maxGroup: number,
  ) {}

  async create(ownerId: string, item: CreateItem): Promise<T> {
    let owner = this.owners.get(ownerId);
    if (!owner) {
      owner = { coalescer: new Coalescer((items: CreateItem[]) => this.write(ownerId, items), this.maxGroup), waiting: 0 };
      this.owners.set(ownerId, owner);
    }
    owner.waiting++;
    this.scopes.set(item, currentAuditScope());
    try {
      const outcome = await owner.coalescer.run(item);
      if ('error' in outcome) throw outcome.error;
      return outcome.value;
    } finally {
      // An owner with nothing waiting keeps nothing in memory.
      if (--owner.waiting === 0 && this.owners.get(ownerId) === owner) this.owners.delete(ownerId);
    }
  }

  private async write(ownerId: string, items: CreateItem[]): Promise<Outcome<T>[]> {
    const outcomes = new Array<Outcome<T>>(items.length);
    const waiting = items.map((item, index) => ({ item, index }));
    const apart = new Set(this.clashing(waiting));
    let group = waiting.filter((entry) => !apart.has(entry));
    while (group.length > 1) {
      try {
        const scope = sharedAuditScope(group.map((entry) => ({ ref: this.record(entry).ref, scope: this.scopes.get(entry.item) })));
        const values = await inAuditScope(scope ?? {}, () =>
          this.writers.together(
            ownerId,
            group.map((entry) => entry.item),
          ),
        );
        group.forEach((entry, i) => (outcomes[entry.index] = { value: values[i] }));
        group = [];
      } catch (error) {
        if (isDatabaseUnreachable(error)) return items.map(() => ({ error }));
        const culprits = this.culprits(error, group);
        for (const entry of culprits ?? group) apart.add(entry);
        group = culprits ? group.filter((entry) => !culprits.has(entry)) : [];
      }
    }
    const alone = waiting.filter((entry) => apart.has(entry) || group.includes(entry));
    for (const entry of alone) {
      try {
        const value = await inAuditScope(this.scopes.get(entry.item) ?? {}, () => this.writers.alone(ownerId, entry.item));
        outcomes[entry.index] = { value };
      } catch (error) {
        outcomes[entry.index] = { error };
      }
    }
    return outcomes;
  }

  /** The items named by a refusal of the group (their layout, their ref), or null when it names none of them. */
  private culprits(error: unknown, group: Waiting[]): Set<Waiting> | null {
    if (!(error instanceof AppError)) return null;
    const named = (key: string, field: 'layout_ref' | 'ref') => {
      const values = new Set((error.details as Record<string, string[]> | undefined)?.[key] ?? []);
      const found = group.filter((entry) => values.has(this.record(entry)[field]));
      return found.length ? new Set(found) : null;
    };
    if (error.code === 'INVALID_LAYOUT_REF') return named('layout_refs', 'layout_ref');
    if (error.code === 'DUPLICATE_KEY') return named('refs', 'ref');
    return null;
  }

  /**
   * Items whose answer would change by sharing a transaction: a ref sent twice (alone, the first creates it and
   * the next finds it taken), and a driver sent with different licence data (alone, each create's event shows
   * its own; together, every one would show the last).
   */
  private clashing(waiting: Waiting[]): Waiting[] {
    const refs = new Map<string, number>();
    const licences = new Map<string, Set<string>>();
    for (const entry of waiting) {
      const ref = this.record(entry).ref;
      refs.set(ref, (refs.get(ref) ?? 0) + 1);
      const { tax_id, driver_license_number, license_category } = entry.item.driver;
      licences.set(tax_id, (licences.get(tax_id) ?? new Set()).add(`${driver_license_number}\n${license_category}`));
    }
    return waiting.filter((entry) => refs.get(this.record(entry).ref)! > 1 || licences.get(entry.item.driver.tax_id)!.size > 1);
  }

  private record(entry: Waiting): { ref: string; layout_ref: string } {
    return entry.item[this.noun];
  }
}
