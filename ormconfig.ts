import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/config.js';
import { openDatabase } from './src/database/data-source.js';
import { ENTITIES } from './src/entities.js';

/** The data source of the TypeORM CLI (`npm run migration:generate -- src/database/migrations/<name>`). */
const database = openDatabase(loadConfig(), ENTITIES);
const dataSource: DataSource = database.dataSource;
export default dataSource;
