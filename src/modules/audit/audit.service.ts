import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { stringify } from 'csv-stringify';
import type { Logger } from 'pino';
import { LOGGER } from '../../common/logging/logger.js';
import { Foreground } from '../../common/scheduling/foreground.js';
import { Periodic } from '../../common/scheduling/periodic.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { inAuditScope, systemActor } from '../../database/audit-context.js';
import { type AuditEntryView, entryTextHash } from './audit-chain.js';
import { type AuditFilter, AuditRepository, type NewAuditEntry } from './audit.repository.js';

/**
 * How often each instance seals what has committed, and how long it may wait for a moment without foreground work
 * (requests, socket messages, webhook deliveries): every entry carries its hash within a second of its change.
 */
const SEAL_EVERY_MS = 200;
const SEAL_WAIT_MAX_MS = 600;
const SEAL_BATCH = 2000;
/** How often each instance purges entries past AUDIT_RETENTION_DAYS. */
const PURGE_EVERY_MS = 3_600_000;
/** Entries read at a time by an export or a verification: memory does not grow with the range. */
export const AUDIT_READ_BATCH = 5000;

/** The columns of the CSV export, in order; objects (`changes`) as JSON text. */
const CSV_COLUMNS = [
  'seq',
  'id',
  'at',
  'account_id',
  'actor_type',
  'actor_id',
  'actor_name',
  'actor_email',
  'action',
  'target_type',
  'target_id',
  'target_ref',
  'changes',
  'request_id',
  'ip',
  'user_agent',
  'hash',
] as const;

const csvRow = (e: AuditEntryView) => ({
  seq: e.seq,
  id: e.id,
  at: e.at,
  account_id: e.account_id,
  actor_type: e.actor.type,
  actor_id: e.actor.id,
  actor_name: e.actor.name,
  actor_email: e.actor.email ?? null,
  action: e.action,
  target_type: e.target.type,
  target_id: e.target.id,
  target_ref: e.target.ref ?? null,
  changes: e.changes === null ? null : JSON.stringify(e.changes),
  request_id: e.request_id,
  ip: e.ip,
  user_agent: e.user_agent,
  hash: e.hash,
});

/** What `GET /api/v1/audit/verify` answers (docs/audit.md#verifying). */
export interface AuditVerification {
  ok: boolean;
  checked: number;
  first_broken_seq?: number;
}

/**
 * The audit trail (docs/audit.md): the sealer that numbers and chains each account's entries just after they
 * commit, the retention purge, and the reads (pages, exports, verification).
 */
@Injectable()
export class AuditService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly sealer: Periodic;
  private readonly purger: Periodic;

  /** The downloads being written (an NDJSON one holds a connection of its own): cut short at shutdown. */
  private readonly downloads = new Set<Writable>();

  constructor(
    private readonly audit: AuditRepository,
    foreground: Foreground,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.sealer = new Periodic(
      () => this.sealAll().catch((error: unknown) => this.logger.warn({ err: error }, 'audit: sealing failed')),
      SEAL_EVERY_MS,
      { to: foreground, maxWaitMs: SEAL_WAIT_MAX_MS },
    );
    this.purger = new Periodic(
      () =>
        this.purgeOld()
          .then((purged) => purged && this.logger.info({ purged }, 'audit entries past their retention purged'))
          .catch((error: unknown) => this.logger.warn({ err: error }, 'audit: purging old entries failed')),
      PURGE_EVERY_MS,
    );
  }

  onApplicationBootstrap(): void {
    this.sealer.start();
    this.purger.start();
  }

  async onModuleDestroy(): Promise<void> {
    // A download still running ends cut short (its reader sees the response fail, not a file that looks complete).
    for (const download of this.downloads) download.destroy();
    await Promise.all([this.sealer.stop(), this.purger.stop()]);
  }

  /**
   * Writes entries of what changes no audited row (a failed sign-in), in a transaction of their own that carries the
   * running request's audit scope.
   */
  record(entries: NewAuditEntry[]): Promise<void> {
    return this.audit.recordAlone(entries);
  }

  /** Seals every account's committed entries (those another instance is sealing are left to it); answers how many. */
  async sealAll(): Promise<number> {
    let sealed = 0;
    for (const account of await this.audit.unsealedAccounts(100)) {
      for (;;) {
        const count = await this.audit.seal(account, SEAL_BATCH);
        if (count > 0) sealed += count;
        if (count < SEAL_BATCH) break;
      }
    }
    return sealed;
  }

  /** Purges, per account, the entries older than AUDIT_RETENTION_DAYS; answers how many. */
  purgeOld(now = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - this.config.auditRetentionDays * 86_400_000);
    return inAuditScope({ actor: systemActor('audit retention') }, async () => {
      let purged = 0;
      for (const account of await this.audit.chains()) purged += await this.audit.purge(account, cutoff);
      return purged;
    });
  }

  /** A page of the account's trail, newest first, before the seq `before`. */
  page(account: string | null, filter: AuditFilter, before: number | null, limit: number): Promise<AuditEntryView[]> {
    return this.audit.page(account, filter, before, limit);
  }

  /**
   * Every sealed entry of the account in `[from, to)`, in seq order, a batch at a time, the next batch read while the
   * caller works on this one (two batches in memory at most).
   */
  entries(account: string | null, range: Pick<AuditFilter, 'from' | 'to'>): AsyncGenerator<AuditEntryView[]> {
    return batches(
      (after) => this.audit.after(account, after, AUDIT_READ_BATCH, range),
      (entry) => entry.seq,
    );
  }

  /**
   * Writes every sealed entry of the account in `[from, to)` to `response`, as NDJSON or CSV (docs/audit.md#reading);
   * resolves when all is written. NDJSON on PostgreSQL is written by PostgreSQL and streamed from one COPY; on the
   * embedded store (one session, which a download must not hold) and over TLS each line is `JSON.stringify` of the
   * entry, a batch's lines one chunk, so the stream holds one batch: its buffer counts bytes, not chunks.
   */
  async export(
    account: string | null,
    range: Pick<AuditFilter, 'from' | 'to'>,
    format: 'ndjson' | 'csv',
    response: Writable,
  ): Promise<void> {
    this.downloads.add(response);
    try {
      if (format === 'ndjson' && this.config.databaseUrl && this.audit.copiesOut)
        return await this.audit.ndjsonTo(account, range, response);
      const entries = this.entries(account, range);
      if (format === 'csv') {
        async function* rows() {
          for await (const batch of entries) for (const entry of batch) yield csvRow(entry);
        }
        return await pipeline(Readable.from(rows()), stringify({ header: true, columns: [...CSV_COLUMNS] }), response);
      }
      async function* lines() {
        for await (const batch of entries) {
          let text = '';
          for (const entry of batch) text += `${JSON.stringify(entry)}\n`;
          yield text;
        }
      }
      await pipeline(Readable.from(lines(), { objectMode: false }), response);
    } finally {
      this.downloads.delete(response);
    }
  }

  /**
   * Recomputes the account's chain over `[from, to)`: each entry's hash from the stored hash of the one before it,
   * and no seq missing. Answers the first seq where it breaks (an entry edited, or one deleted: the next seq is then
   * not the one expected).
   */
  async verify(account: string | null, range: Pick<AuditFilter, 'from' | 'to'>): Promise<AuditVerification> {
    let checked = 0;
    let previous: { seq: number; hash: string } | null = null;
    for await (const batch of batches(
      (after) => this.audit.afterAsText(account, after, AUDIT_READ_BATCH, range),
      (e) => Number(e.seq),
    )) {
      for (const text of batch) {
        const entry = { seq: Number(text.seq), hash: text.hash ?? '' };
        previous ??= await this.audit.before(account, entry.seq);
        if (!previous || entry.seq !== previous.seq + 1 || entryTextHash(previous.hash, text) !== entry.hash) {
          // An entry missing (deleted) breaks the chain at its seq; an entry edited, at its own.
          const missing = previous ? entry.seq !== previous.seq + 1 : true;
          return { ok: false, checked, first_broken_seq: missing ? (previous?.seq ?? entry.seq - 1) + (previous ? 1 : 0) : entry.seq };
        }
        previous = entry;
        checked += 1;
      }
    }
    return { ok: true, checked };
  }
}

/** Batches of `read(after)` (each after the last seq of the one before) until one is short; the next read while this one is used. */
async function* batches<T>(read: (after: number) => Promise<T[]>, seqOf: (item: T) => number): AsyncGenerator<T[]> {
  let next: Promise<T[]> | null = read(0);
  try {
    while (next) {
      const batch: T[] = await next;
      next = batch.length === AUDIT_READ_BATCH ? read(seqOf(batch[batch.length - 1])) : null;
      if (batch.length) yield batch;
    }
  } finally {
    // Left early (a broken chain, a client gone): the batch read ahead is not wanted, nor its failure.
    next?.catch(() => undefined);
  }
}
