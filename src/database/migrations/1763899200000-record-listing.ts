import type { MigrationInterface, QueryRunner } from 'typeorm';

const TABLES = [
  { table: 'appointments', owner: 'terminal_id' },
  { table: 'trips', owner: 'trucking_company_id' },
];

/**
 * Indexes of the listing (docs/listing.md): its order, `(window_start, records without one last, ref)`, for
 * keyset pages; the same order within one status and within one layout; `updated_since`; `ref_prefix`
 * (`LIKE 'p%'` needs pattern ops under a non-C collation); and the admissible window as a range, for
 * `window_from`/`window_to` (records with a window_start: the others come last in the order index). `gate_shift` adds minutes to a timestamp: minutes are absolute time, whatever
 * the time zone, so it is IMMUTABLE and can be indexed (PostgreSQL marks timestamptz + interval only STABLE,
 * for days and months).
 */
export class RecordListing1763899200000 implements MigrationInterface {
  name = 'RecordListing1763899200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `CREATE FUNCTION gate_shift(at timestamptz, minutes integer) RETURNS timestamptz
         LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN at + make_interval(mins => minutes)`,
    );
    for (const { table, owner } of TABLES) {
      const order = `(COALESCE(window_start, 'infinity'::timestamptz)), ref`;
      await db.query(`CREATE INDEX ${table}_list_idx ON ${table} (${owner}, ${order})`);
      await db.query(`CREATE INDEX ${table}_list_status_idx ON ${table} (${owner}, status, ${order})`);
      await db.query(`CREATE INDEX ${table}_list_layout_idx ON ${table} (${owner}, layout_ref, ${order})`);
      await db.query(`CREATE INDEX ${table}_updated_idx ON ${table} (${owner}, updated_at)`);
      await db.query(`CREATE INDEX ${table}_ref_prefix_idx ON ${table} (${owner}, ref text_pattern_ops)`);
      await db.query(
        `CREATE INDEX ${table}_admissible_idx ON ${table} USING gist
           (tstzrange(gate_shift(window_start, -start_tolerance), gate_shift(window_end, end_tolerance), '[]'))
           WHERE window_start IS NOT NULL`,
      );
    }
  }

  async down(db: QueryRunner): Promise<void> {
    for (const { table } of TABLES) {
      for (const index of ['list', 'list_status', 'list_layout', 'updated', 'ref_prefix', 'admissible']) {
        await db.query(`DROP INDEX ${table}_${index}_idx`);
      }
    }
    await db.query(`DROP FUNCTION gate_shift(timestamptz, integer)`);
  }
}
