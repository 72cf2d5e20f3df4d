import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../src/database/migrations/index.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';

describe('schema: migrations and entities agree', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('leaves nothing for migration:generate to find', async () => {
    const pending = await t.app.get(DataSource).driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query)).toEqual([]);
  });

  it('reverts every migration and applies them again', async () => {
    const db = t.app.get(DataSource);
    for (let i = 0; i < MIGRATIONS.length; i++) await db.undoLastMigration({ transaction: 'each' });
    expect(await db.query(`SELECT count(*)::int AS n FROM migrations`)).toEqual([{ n: 0 }]);
    expect((await db.runMigrations({ transaction: 'each' })).length).toBe(MIGRATIONS.length);
    expect((await db.driver.createSchemaBuilder().log()).upQueries).toEqual([]);
  });
});
