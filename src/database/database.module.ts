import { type DynamicModule, Global, Module, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DATABASE, type Database } from './data-source.js';
import { InstanceLiveness } from './instance-liveness.js';

/** Provides the already-open, migrated DataSource and closes the store when the app shuts down. */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(database: Database): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        { provide: DATABASE, useValue: database },
        { provide: DataSource, useValue: database.dataSource },
        { provide: DatabaseCloser, useFactory: () => new DatabaseCloser(database) },
        InstanceLiveness,
      ],
      exports: [DATABASE, DataSource, InstanceLiveness],
    };
  }
}

class DatabaseCloser implements OnApplicationShutdown {
  constructor(private readonly database: Database) {}

  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
  }
}

export { DATABASE };
