import { beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { DriversRepository } from '../../src/modules/drivers/drivers.repository.js';
import { useTestApp } from '../setup/test-app.js';
import { captureStatements } from '../setup/statements.js';

describe('drivers: many created or updated in one statement', () => {
  const t = useTestApp();
  let db: DataSource;
  let drivers: DriversRepository;

  beforeAll(() => {
    db = t.app.get(DataSource);
    drivers = t.app.get(DriversRepository);
  });

  it('creates new drivers and updates the licence of known ones, in one statement for the whole batch', async () => {
    const first = await db.transaction((m) =>
      drivers.upsertMany(m, [{ tax_id: '111', driver_license_number: 'L1', license_category: 'C' }]),
    );
    const batch = Array.from({ length: 300 }, (_, i) => ({
      tax_id: String(1000 + i),
      driver_license_number: `N${i}`,
      license_category: 'E',
    }));
    batch.push({ tax_id: '111', driver_license_number: 'L1-renewed', license_category: 'D' });

    let ids = new Map<string, string>();
    const statements = await captureStatements(db, () => db.transaction(async (m) => (ids = await drivers.upsertMany(m, batch))));
    expect(statements).toHaveLength(1);
    expect(ids.size).toBe(301);
    expect(ids.get('111')).toBe(first.get('111'));

    const rows: { driver_license_number: string; license_category: string }[] = await db.query(
      `SELECT driver_license_number, license_category FROM drivers WHERE tax_id = '111'`,
    );
    expect(rows).toEqual([{ driver_license_number: 'L1-renewed', license_category: 'D' }]);
    expect((await db.query(`SELECT count(*)::int AS n FROM drivers`))[0].n).toBe(301);
  });

  it('keeps the last occurrence of a tax id repeated in one batch', async () => {
    const ids = await db.transaction((m) =>
      drivers.upsertMany(m, [
        { tax_id: '222', driver_license_number: 'A', license_category: 'C' },
        { tax_id: '222', driver_license_number: 'B', license_category: 'E' },
      ]),
    );
    expect(ids.size).toBe(1);
    const rows = await db.query(`SELECT driver_license_number FROM drivers WHERE tax_id = '222'`);
    expect(rows).toEqual([{ driver_license_number: 'B' }]);
  });

  it('leaves updated_at alone when nothing changed', async () => {
    await db.transaction((m) => drivers.upsertMany(m, [{ tax_id: '333', driver_license_number: 'X', license_category: 'C' }]));
    const [before] = await db.query(`SELECT updated_at FROM drivers WHERE tax_id = '333'`);
    await db.transaction((m) => drivers.upsertMany(m, [{ tax_id: '333', driver_license_number: 'X', license_category: 'C' }]));
    const [after] = await db.query(`SELECT updated_at FROM drivers WHERE tax_id = '333'`);
    expect(after.updated_at).toEqual(before.updated_at);
  });
});
