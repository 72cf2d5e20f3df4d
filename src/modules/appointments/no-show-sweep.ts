import { inAuditScope, systemActor } from '../../database/audit-context.js';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from '../../common/logging/logger.js';
import { Periodic } from '../../common/scheduling/periodic.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { Changes } from '../feed/changes.js';
import { AppointmentsRepository } from './appointments.repository.js';
import { AppointmentsService } from './appointments.service.js';

/** Most appointments one statement marks; a sweep repeats it until fewer are due. */
const BATCH = 1000;

/**
 * No-shows (docs/statuses.md#no-shows): every NO_SHOW_SWEEP_MS (after the previous sweep ends) each instance marks the appointments still
 * SCHEDULED whose admissible window has ended, each with an `appointment.no_show` event of its terminal.
 * Instances may sweep at the same time: the statement marks each appointment once.
 */
@Injectable()
export class NoShowSweep implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly sweeps: Periodic;

  constructor(
    private readonly repository: AppointmentsRepository,
    private readonly appointments: AppointmentsService,
    private readonly changes: Changes,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.sweeps = new Periodic(() => this.sweep(), config.noShowSweepMs);
  }

  onApplicationBootstrap(): void {
    this.sweeps.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.sweeps.stop();
  }

  /**
   * Marks every due appointment; answers how many. Failures are logged and left to the next sweep. Its changes are
   * the service's own in the audit trail.
   */
  sweep(): Promise<number> {
    return inAuditScope({ actor: systemActor('no-show sweep') }, () => this.sweepNow());
  }

  private async sweepNow(): Promise<number> {
    let marked = 0;
    try {
      for (;;) {
        const count = await this.changes.transaction(async (manager, events) => {
          const rows = await this.repository.markNoShows(manager, BATCH);
          events.account(
            this.appointments.view.events,
            rows.map((row) => ({ accountId: row.terminal_id, type: 'appointment.no_show', id: row.id })),
          );
          return rows.length;
        });
        marked += count;
        if (count < BATCH) break;
      }
      if (marked) this.logger.info({ marked }, 'appointments marked as no-shows');
    } catch (error) {
      this.logger.warn({ err: error }, 'no-show sweep failed; the next one retries');
    }
    return marked;
  }
}
