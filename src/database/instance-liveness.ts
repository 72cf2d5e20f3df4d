import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { DATABASE, type Database } from './data-source.js';
import { LOCK_SPACE } from './lock-space.js';

/** An instance id's advisory lock key: its first 32 bits, as PostgreSQL's signed integer. */
const lockKey = (instanceId: string) => Number.parseInt(instanceId.slice(0, 8), 16) | 0;

/**
 * Who is running: each service process has an id, and can tell whether the process behind another id is
 * still alive, so work a dead process left half-done (a pending check-in) is taken over at once instead of
 * after a timeout. On PostgreSQL an instance holds an advisory lock on a connection of its own for as long
 * as it lives; PostgreSQL drops the lock the moment that process dies. The embedded store admits one
 * process at a time, so there every other id is a dead one.
 */
/** First wait before taking the lock again after its connection dropped; doubled up to RECONNECT_MAX_MS. */
const RECONNECT_MS = 250;
const RECONNECT_MAX_MS = 10_000;

@Injectable()
export class InstanceLiveness implements OnModuleInit, OnApplicationShutdown {
  readonly id = randomUUID();
  private lockHolder: pg.Client | null = null;
  private reconnect: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    @Inject(DATABASE) private readonly database: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: DataSource,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.database.embedded || !this.config.databaseUrl) return;
    await this.holdLock();
  }

  /**
   * Takes this instance's lock on a connection of its own. The lock lives as long as that connection: when
   * the database drops it (a restart, a network cut), other instances see this one as gone, so the lock is
   * taken again on a new connection as soon as the database answers.
   */
  private async holdLock(): Promise<void> {
    const client = new pg.Client({ connectionString: this.config.databaseUrl! });
    client.on('error', () => undefined);
    client.on('end', () => {
      if (this.lockHolder === client) this.lockHolder = null;
      if (!this.stopped) this.retakeLock(RECONNECT_MS);
    });
    await client.connect();
    await client.query('SELECT pg_advisory_lock($1, $2)', [LOCK_SPACE, lockKey(this.id)]);
    if (this.stopped) return void (await client.end().catch(() => undefined));
    this.lockHolder = client;
  }

  private retakeLock(delayMs: number): void {
    if (this.reconnect || this.stopped) return;
    this.reconnect = setTimeout(() => {
      this.reconnect = null;
      this.holdLock().catch(() => this.retakeLock(Math.min(delayMs * 2, RECONNECT_MAX_MS)));
    }, delayMs).unref();
  }

  /** Whether the instance with this id still runs (this one always does; an unknown or null id does not). */
  async isAlive(instanceId: string | null): Promise<boolean> {
    if (instanceId === this.id) return true;
    if (instanceId === null || this.database.embedded) return false;
    // Free to take (even shared) means nobody holds it: that instance is gone. Released with the statement.
    const [row]: { free: boolean }[] = await this.db.query('SELECT pg_try_advisory_xact_lock_shared($1, $2) AS free', [
      LOCK_SPACE,
      lockKey(instanceId),
    ]);
    return !row.free;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.reconnect) clearTimeout(this.reconnect);
    await this.lockHolder?.end().catch(() => undefined);
    this.lockHolder = null;
  }
}
