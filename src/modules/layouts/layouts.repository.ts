import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { LayoutDefinition, LayoutSet } from './layout-schema.js';
import { Layout } from './layout.entity.js';

interface LayoutRow {
  id: string;
  owner_id: string;
  layout_set: LayoutSet;
  ref: string;
  name: string | null;
  definition: LayoutDefinition;
  created_at: Date;
  updated_at: Date;
}

const toLayout = (row: LayoutRow): Layout =>
  Object.assign(new Layout(), {
    id: row.id,
    ownerId: row.owner_id,
    set: row.layout_set,
    ref: row.ref,
    name: row.name,
    definition: row.definition,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });

@Injectable()
export class LayoutsRepository {
  constructor(private readonly db: DataSource) {}

  /** Creates or replaces in one statement; `created` tells which happened. */
  async upsert(
    ownerId: string,
    set: LayoutSet,
    ref: string,
    name: string | null,
    definition: LayoutDefinition,
  ): Promise<{ layout: Layout; created: boolean }> {
    const rows: (LayoutRow & { created: boolean })[] = await this.db.query(
      `INSERT INTO layouts (owner_id, layout_set, ref, name, definition)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (owner_id, layout_set, ref)
       DO UPDATE SET name = EXCLUDED.name, definition = EXCLUDED.definition, updated_at = now()
       RETURNING *, (xmax = 0) AS created`,
      [ownerId, set, ref, name, JSON.stringify(definition)],
    );
    return { layout: toLayout(rows[0]), created: rows[0].created };
  }

  findOne(ownerId: string, set: LayoutSet, ref: string): Promise<Layout | null> {
    return this.db.getRepository(Layout).findOneBy({ ownerId, set, ref });
  }

  list(ownerId: string, set: LayoutSet): Promise<Layout[]> {
    return this.db.getRepository(Layout).find({ where: { ownerId, set }, order: { ref: 'ASC' } });
  }

  /** The refs and names of the layouts of this set of every one of these owners, by owner then ref, in one query. */
  refsOf(ownerIds: string[], set: LayoutSet): Promise<{ owner_id: string; ref: string; name: string | null }[]> {
    return this.db.query(
      `SELECT owner_id, ref, name FROM layouts WHERE owner_id = ANY($1::uuid[]) AND layout_set = $2 ORDER BY owner_id, ref`,
      [ownerIds, set],
    );
  }

  /** Locks the layout row for the rest of `manager`'s transaction; false when there is none. */
  async lockForDelete(manager: EntityManager, ownerId: string, set: LayoutSet, ref: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT 1 FROM layouts WHERE owner_id = $1 AND layout_set = $2 AND ref = $3 FOR UPDATE`, [
      ownerId,
      set,
      ref,
    ]);
    return rows.length > 0;
  }

  async delete(manager: EntityManager, ownerId: string, set: LayoutSet, ref: string): Promise<void> {
    await manager.query(`DELETE FROM layouts WHERE owner_id = $1 AND layout_set = $2 AND ref = $3`, [ownerId, set, ref]);
  }

  /**
   * Of `refs`, those with no layout of this owner and set, in one query. Found rows are share-locked
   * until `manager`'s transaction ends, so a concurrent layout delete waits for records that use them.
   */
  async findMissingRefs(manager: EntityManager, ownerId: string, set: LayoutSet, refs: string[]): Promise<string[]> {
    const unique = [...new Set(refs)];
    const rows: { ref: string }[] = await manager.query(
      `SELECT ref FROM layouts WHERE owner_id = $1 AND layout_set = $2 AND ref = ANY($3::text[]) FOR SHARE`,
      [ownerId, set, unique],
    );
    const found = new Set(rows.map((row) => row.ref));
    return unique.filter((ref) => !found.has(ref));
  }
}
