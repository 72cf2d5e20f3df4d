import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from '../../common/logging/logger.js';
import { Periodic } from '../../common/scheduling/periodic.js';
import { ReportsRepository } from './reports.repository.js';

/** How often each instance compacts the daily rollups (after the previous compaction ends). */
const COMPACT_EVERY_MS = 60_000;
/** Most keys one transaction compacts; a compaction repeats it until fewer were found. */
const BATCH = 1000;

/**
 * Compaction of the daily rollups (docs/reports.md#how-the-figures-are-kept): every statement that writes
 * appointments appends a row of deltas per day and kind it touches, so a day written one booking at a time would
 * hold as many rows as writes and a report by day would cost what the writes were, not the days it covers. Every
 * minute each instance replaces the rows of each day by their sums; instances may compact at the same time.
 */
@Injectable()
export class ReportsCompaction implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly runs = new Periodic(() => this.compact(), COMPACT_EVERY_MS);

  constructor(
    private readonly reports: ReportsRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.runs.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.runs.stop();
  }

  /** Compacts every day of more than one row per kind; answers the keys compacted. Failures are logged and left to the next run. */
  async compact(): Promise<number> {
    let compacted = 0;
    try {
      for (;;) {
        const found = await this.reports.compactDays(BATCH);
        compacted += found;
        if (found < BATCH) return compacted;
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'reports: compacting the daily rollups failed');
      return compacted;
    }
  }
}
