import type { MigrationInterface, QueryRunner } from 'typeorm';
import { installAuditTriggers } from './1763965000000-audit-named-columns.js';

/**
 * The audit trigger functions generated again: each returns at once for a statement that wrote no row of its table.
 * PostgreSQL fires a statement trigger for every data-modifying statement, and for each data-modifying step of a larger
 * one, rows or none: a webhook's delivery outcomes set its health in a step that finds nothing to change almost always,
 * and each such step ran the webhooks' function whole (its audit scope read, its INSERT … SELECT over two empty
 * transition tables). The entries written are the same; `down` leaves the functions as they are.
 */
export class AuditSkipsEmptyStatements1763972000000 implements MigrationInterface {
  name = 'AuditSkipsEmptyStatements1763972000000';

  async up(db: QueryRunner): Promise<void> {
    await installAuditTriggers(db);
  }

  async down(): Promise<void> {
    // The early return changes no entry: nothing to undo.
  }
}
