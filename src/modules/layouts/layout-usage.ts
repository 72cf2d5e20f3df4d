import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { LayoutSet } from './layout-schema.js';

/** Answers whether a live record of `ownerId` uses layout `ref`; runs inside the delete's transaction. */
export type LayoutUsageCheck = (manager: EntityManager, ownerId: string, ref: string) => Promise<boolean>;

/** A driver's feed as a token sees it: the driver, and the partner (owner or booking carrier) that minted the token. */
export interface LayoutReader {
  driverId: string;
  partnerId: string;
}

/** The drivers' feeds whose live records (or their tickets) use layout `ref` of `ownerId`. */
export type LayoutReaders = (ownerId: string, ref: string) => Promise<LayoutReader[]>;

/**
 * Modules whose records point at layouts (trips, appointments, tickets) register a check here at start-up,
 * so deleting a layout in use is refused with LAYOUT_IN_USE without the layouts module knowing them; and who
 * reads their layouts, so a driver app hears of a layout that changed.
 */
@Injectable()
export class LayoutUsage {
  private readonly checks = new Map<LayoutSet, { name: string; check: LayoutUsageCheck }[]>();
  private readonly readers = new Map<LayoutSet, LayoutReaders[]>();

  register(set: LayoutSet, name: string, check: LayoutUsageCheck): void {
    this.checks.set(set, [...(this.checks.get(set) ?? []), { name, check }]);
  }

  /** The module's records of this set are drawn in driver apps with their layouts: who to tell when one changes. */
  registerReaders(set: LayoutSet, readers: LayoutReaders): void {
    this.readers.set(set, [...(this.readers.get(set) ?? []), readers]);
  }

  /** The drivers' feeds that draw layout `ref` of `ownerId` (`layout.changed` goes to them). */
  async readersOf(set: LayoutSet, ownerId: string, ref: string): Promise<LayoutReader[]> {
    const found = await Promise.all((this.readers.get(set) ?? []).map((readers) => readers(ownerId, ref)));
    return found.flat();
  }

  /** The names of the kinds of record that use the layout (empty when it is free). */
  async usedBy(manager: EntityManager, set: LayoutSet, ownerId: string, ref: string): Promise<string[]> {
    const users: string[] = [];
    for (const { name, check } of this.checks.get(set) ?? []) {
      if (await check(manager, ownerId, ref)) users.push(name);
    }
    return users;
  }
}
