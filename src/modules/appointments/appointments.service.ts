import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { CapacityGuard } from '../capacity/capacity-guard.js';
import { DriversService } from '../drivers/drivers.service.js';
import { Changes, type EventWriter } from '../feed/changes.js';
import { LayoutUsage } from '../layouts/layout-usage.js';
import { LayoutsService } from '../layouts/layouts.service.js';
import type { RecordRow } from '../records/record-definition.js';
import { groupingOf, RecordsService } from '../records/records.service.js';
import type { GateStamp } from './appointments.definition.js';
import { AppointmentsRepository } from './appointments.repository.js';

/** A stamp to set on an appointment (docs/gate.md#stamps): once, never rewritten. */
export interface StampChange {
  record: { id: string; terminal_id: string };
  column: GateStamp;
  /** The moment (a read's read_at); null: now. */
  at: Date | null;
  /** A log entry for it (`arrived`, `entered`, `departed`); none when the move that goes with it says it already. */
  log?: { message: string; data: Record<string, unknown> };
  /** An `appointment.updated` event for it: when no status move's event carries it. */
  event?: boolean;
}

/** Appointments: the records engine with the appointments definition, guarded by the terminal's capacity rules. */
@Injectable()
export class AppointmentsService extends RecordsService {
  constructor(
    private readonly appointments: AppointmentsRepository,
    layouts: LayoutsService,
    usage: LayoutUsage,
    drivers: DriversService,
    changes: Changes,
    capacity: CapacityGuard,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super(appointments, { layouts, usage, drivers, changes, guard: capacity, grouping: groupingOf(config) });
  }

  /** Sets a gate stamp unless the appointment has it already; answers whether it did. */
  async stamp(manager: EntityManager, events: EventWriter, change: StampChange): Promise<boolean> {
    const stamped = await this.appointments.stamp(manager, change.record.id, change.column, change.at);
    if (!stamped) return false;
    if (change.log) await this.log(manager, [{ recordId: change.record.id, event: change.column.replace(/_at$/, ''), ...change.log }]);
    if (change.event)
      events.account(this.view.events, [{ accountId: change.record.terminal_id, type: 'appointment.updated', id: change.record.id }]);
    return true;
  }

  /**
   * The terminal's appointments, with their drivers, whose plate key (`gate_plate_key`) is one of `keys` or whose
   * folded key (`gate_plate_fold`) is one of `folds`, neither deleted nor completed (docs/gate.md#matching).
   */
  findByPlates(terminalId: string, keys: string[], folds: string[]): Promise<(RecordRow & { license_plate: string | null })[]> {
    return this.appointments.findByPlates(terminalId, keys, folds);
  }

  /** The terminal's appointments with these refs, with their drivers (deleted ones included). */
  findByRefs(terminalId: string, refs: string[]): Promise<RecordRow[]> {
    return this.appointments.findWithDrivers(terminalId, refs);
  }
}
