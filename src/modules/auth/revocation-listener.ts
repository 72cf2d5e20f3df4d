import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import type { Logger } from 'pino';
import { LOGGER } from '../../common/logging/logger.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { DATABASE, type Database } from '../../database/data-source.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { AuthCache, type LivenessCheck, type SqlRunner } from './auth-cache.js';
import { DriverTokenGrantsRepository } from './driver-token-grants.repository.js';
import { parseRevocation, REVOCATION_CHANNEL } from './revocation-signal.js';
import { Revocations } from './revocations.js';

/** How often the cached credentials are checked against the database; the check also proves the connection alive. */
const REVALIDATE_EVERY_MS = 30_000;
/** A check that takes longer means the connection is gone, whatever TCP says. */
const CHECK_TIMEOUT_MS = 10_000;
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 10_000;

/**
 * Hears every revocation stored in the database, by any process (another instance, the CLI), on a PostgreSQL
 * connection of its own that LISTENs; announces each on `Revocations`, which empties it from the AuthCache
 * and closes its sockets. While that connection is down the cache is not used; it is emptied and used again
 * once the connection listens again. Every 30 s the connection also checks the cached credentials are still
 * live, so a revocation that bypassed the signal (an UPDATE typed in psql) lasts at most that long.
 *
 * The embedded store admits one process at a time (a lock on its folder: the CLI cannot run beside the
 * service), so every revocation there is made, and announced, in this process: nothing to listen to.
 */
@Injectable()
export class RevocationListener implements OnModuleInit, OnApplicationShutdown {
  private client: pg.Client | null = null;
  private listening = false;
  private retry: NodeJS.Timeout | null = null;
  private checker: NodeJS.Timeout | null = null;
  private failures = 0;
  private stopped = false;

  constructor(
    @Inject(DATABASE) private readonly database: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly revocations: Revocations,
    private readonly cache: AuthCache,
    private readonly apiKeys: ApiKeysRepository,
    private readonly grants: DriverTokenGrantsRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.database.embedded || !this.config.databaseUrl) {
      this.cache.trust();
      return;
    }
    await this.connect();
  }

  /** Checks every cached credential against the database now; on this connection, so a failure means it is down. */
  async revalidate(): Promise<void> {
    const client = this.client;
    if (!client || !this.listening) return;
    const onClient: SqlRunner = {
      query: <T>(sql: string, parameters: unknown[]) => client.query(sql, parameters).then((result) => result.rows as T[]),
    };
    const check: LivenessCheck = {
      liveKeyHashes: (hashes) => this.apiKeys.liveKeyHashes(hashes, onClient),
      liveSessionHashes: (hashes) => this.apiKeys.liveSessionHashes(hashes, onClient),
      liveGrants: (grants) => this.grants.liveGrants(grants, onClient),
    };
    try {
      await this.cache.revalidate(check);
    } catch (error) {
      await this.lost(client, error);
    }
  }

  private async connect(): Promise<void> {
    this.retry = null;
    const client = new pg.Client({
      connectionString: this.config.databaseSessionUrl!,
      application_name: 'gate-revocations',
      keepAlive: true,
      connectionTimeoutMillis: CHECK_TIMEOUT_MS,
      query_timeout: CHECK_TIMEOUT_MS,
    });
    this.client = client;
    client.on('notification', (message) => this.receive(message.payload));
    client.on('error', (error) => void this.lost(client, error));
    client.on('end', () => void this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${REVOCATION_CHANNEL}`);
    } catch (error) {
      return this.lost(client, error);
    }
    if (this.client !== client) return;
    this.listening = true;
    // Whatever was revoked while nobody listened is forgotten with the rest.
    this.cache.trust();
    this.checker = setInterval(() => void this.revalidate(), REVALIDATE_EVERY_MS).unref();
    if (this.failures > 0) this.logger.info('revocation listener: listening again; credential cache back in use');
    this.failures = 0;
  }

  private receive(payload: string | undefined): void {
    const revocation = parseRevocation(payload);
    if (revocation) return this.revocations.announce(revocation);
    this.logger.warn({ payload }, 'revocation listener: unreadable notification; credential cache emptied');
    this.cache.clear();
  }

  /** The connection failed or closed: stop trusting the cache at once, and connect again unless shutting down. */
  private async lost(client: pg.Client, error?: unknown): Promise<void> {
    if (this.client !== client) return;
    this.client = null;
    this.listening = false;
    this.cache.distrust();
    if (this.checker) clearInterval(this.checker);
    this.checker = null;
    if (!this.stopped) {
      if (this.failures === 0)
        this.logger.warn({ err: error }, 'revocation listener: not listening; credential cache off until it is back');
      const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** this.failures++);
      this.retry = setTimeout(() => void this.connect(), delay).unref();
    }
    await client.end().catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.client) await this.lost(this.client);
  }
}
