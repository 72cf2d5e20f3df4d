import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { LayoutSet } from './layout-schema.js';

/** Answers whether a live record of `ownerId` uses layout `ref`; runs inside the delete's transaction. */
export type LayoutUsageCheck = (manager: EntityManager, ownerId: string, ref: string) => Promise<boolean>;

/**
 * Modules whose records point at layouts (trips, appointments, tickets) register a check here at start-up,
 * so deleting a layout in use is refused with LAYOUT_IN_USE without the layouts module knowing them.
 */
@Injectable()
export class LayoutUsage {
  private readonly checks = new Map<LayoutSet, { name: string; check: LayoutUsageCheck }[]>();

  register(set: LayoutSet, name: string, check: LayoutUsageCheck): void {
    this.checks.set(set, [...(this.checks.get(set) ?? []), { name, check }]);
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
