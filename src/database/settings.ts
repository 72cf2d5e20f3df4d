import type { DataSource } from 'typeorm';

/** The stored value of `key`, or `create()`'s, stored first by whichever process gets there first. */
export async function settingOrCreate(db: DataSource, key: string, create: () => string): Promise<string> {
  await db.query(`INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, [key, create()]);
  const rows: { value: string }[] = await db.query(`SELECT value FROM settings WHERE key = $1`, [key]);
  return rows[0].value;
}
