import 'reflect-metadata';
import { loadConfig } from '../src/config/config.js';
import { openDatabase } from '../src/database/data-source.js';
import { ENTITIES } from '../src/entities.js';

/** `npm run migration:run` / `migration:revert`: against DATABASE_URL, or the embedded store in DATA_DIR. */
const command = process.argv[2];
if (command !== 'run' && command !== 'revert') {
  console.error('usage: migrate.js run|revert');
  process.exit(64);
}
const database = openDatabase(loadConfig(), ENTITIES);
try {
  await database.dataSource.initialize();
  if (command === 'run') {
    const applied = await database.dataSource.runMigrations({ transaction: 'each' });
    console.log(applied.length ? `applied: ${applied.map((m) => m.name).join(', ')}` : 'no pending migrations');
  } else {
    await database.dataSource.undoLastMigration({ transaction: 'each' });
    console.log('reverted the last migration');
  }
} finally {
  await database.close();
}
