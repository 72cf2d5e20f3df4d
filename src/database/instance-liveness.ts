import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { DATABASE, type Database } from './data-source.js';
import { LOCK_SPACE } from './lock-space.js';

/**
 * An instance holds its lock under each of these first keys, on two connections of its own ("gate", "gatf"), so
 * that one dropped connection does not make a living instance look gone.
 */
const LOCK_SPACES = [LOCK_SPACE, 0x67617466] as const;

/** An instance id's advisory lock key: its first 32 bits, as PostgreSQL's signed integer. */
const lockKey = (instanceId: string) => Number.parseInt(instanceId.slice(0, 8), 16) | 0;

/**
 * SQL that is true when the instance named by the uuid expression `instance` is gone: no id, or neither of its
 * locks held (each free to take, even shared; taken with the statement's transaction and released with it, so
 * it can sit in the WHERE of the very statement that acts on the answer). Never true of `self`, this instance's
 * id: it knows it is alive, even while the database lost both its lock connections, and on the embedded store,
 * where nobody holds a lock. The same lock key as `lockKey`, computed in SQL.
 */
export function instanceGoneSql(instance: string, self: string): string {
  const key = `('x' || left((${instance})::text, 8))::bit(32)::int`;
  const free = LOCK_SPACES.map((space) => `pg_try_advisory_xact_lock_shared(${space}, ${key})`).join(' AND ');
  return `((${instance}) IS DISTINCT FROM (${self}) AND ((${instance}) IS NULL OR (${free})))`;
}

/** First wait before taking a lock again after its connection dropped; doubled up to RECONNECT_MAX_MS. */
const RECONNECT_MS = 250;
const RECONNECT_MAX_MS = 10_000;

/**
 * Who is running: each service process has an id, and can tell whether the process behind another id is
 * still alive, so work a dead process left half-done (a pending check-in, a claimed Idempotency-Key) is taken
 * over at once instead of after a timeout. On PostgreSQL an instance holds an advisory lock on a connection of
 * its own for as long as it lives; PostgreSQL drops the lock the moment that process dies. It holds it twice,
 * under two lock spaces on two connections, and takes a dropped one again on a new connection: one connection
 * dropped while the process lives (a proxy's or firewall's reset, `pg_terminate_backend`, an idle timeout)
 * leaves the other holding, so the instance is never seen as gone while it runs, unless the database drops
 * both at once (it restarted, or the network to it was cut) and until it takes them again. The embedded store
 * admits one process at a time, so there every other id is a dead one.
 */
@Injectable()
export class InstanceLiveness implements OnModuleInit, OnApplicationShutdown {
  readonly id = randomUUID();
  private readonly holders: (pg.Client | null)[] = LOCK_SPACES.map(() => null);
  private readonly reconnects: (NodeJS.Timeout | null)[] = LOCK_SPACES.map(() => null);
  private stopped = false;

  constructor(
    @Inject(DATABASE) private readonly database: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: DataSource,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.database.embedded || !this.config.databaseUrl) return;
    await Promise.all(LOCK_SPACES.map((_, holder) => this.holdLock(holder)));
  }

  /**
   * Takes this instance's lock under one space on a connection of its own. The lock lives as long as that
   * connection: when the database drops it, the lock is taken again on a new connection as soon as the
   * database answers (the other holder keeps the instance alive meanwhile). TCP keep-alive keeps an idle
   * connection from being forgotten by what lies between.
   */
  private async holdLock(holder: number): Promise<void> {
    const client = new pg.Client({ connectionString: this.config.databaseSessionUrl!, keepAlive: true, application_name: 'gate-liveness' });
    client.on('error', () => undefined);
    client.on('end', () => {
      if (this.holders[holder] === client) this.holders[holder] = null;
      if (!this.stopped) this.retakeLock(holder, RECONNECT_MS);
    });
    await client.connect();
    await client.query('SELECT pg_advisory_lock($1, $2)', [LOCK_SPACES[holder], lockKey(this.id)]);
    if (this.stopped) return void (await client.end().catch(() => undefined));
    this.holders[holder] = client;
  }

  private retakeLock(holder: number, delayMs: number): void {
    if (this.reconnects[holder] || this.stopped) return;
    this.reconnects[holder] = setTimeout(() => {
      this.reconnects[holder] = null;
      this.holdLock(holder).catch(() => this.retakeLock(holder, Math.min(delayMs * 2, RECONNECT_MAX_MS)));
    }, delayMs).unref();
  }

  /** Whether the instance with this id still runs (this one always does; an unknown or null id does not). */
  async isAlive(instanceId: string | null): Promise<boolean> {
    if (instanceId === this.id) return true;
    if (instanceId === null || this.database.embedded) return false;
    const [row]: { gone: boolean }[] = await this.db.query(`SELECT ${instanceGoneSql('$1::uuid', '$2::uuid')} AS gone`, [
      instanceId,
      this.id,
    ]);
    return !row.gone;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    for (const timer of this.reconnects) if (timer) clearTimeout(timer);
    await Promise.all(this.holders.filter((client) => client !== null).map((client) => client.end().catch(() => undefined)));
    this.holders.fill(null);
  }
}
