import type { Provider, Type } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { DriversRepository } from '../drivers/drivers.repository.js';
import { DriverFeed } from '../feed/driver-feed.js';
import { LayoutUsage } from '../layouts/layout-usage.js';
import { LayoutsRepository } from '../layouts/layouts.repository.js';
import type { RecordDefinition } from './record-definition.js';
import { RecordsRepository } from './records.repository.js';
import { RecordsService } from './records.service.js';

/** The RecordsService of one kind of record, registered with LayoutUsage so its layouts cannot be deleted in use. */
export function recordsServiceProvider(token: symbol, def: RecordDefinition, createItem: Type<object>, updateItem: Type<object>): Provider {
  return {
    provide: token,
    inject: [DataSource, LayoutsRepository, DriversRepository, LayoutUsage, DriverFeed, APP_CONFIG],
    useFactory: (
      db: DataSource,
      layouts: LayoutsRepository,
      drivers: DriversRepository,
      usage: LayoutUsage,
      feed: DriverFeed,
      config: AppConfig,
    ) => {
      const service = new RecordsService(def, new RecordsRepository(def, db), layouts, drivers, db, feed, config, createItem, updateItem);
      usage.register(def.layoutSet, def.table, service.usesLayout);
      return service;
    },
  };
}
