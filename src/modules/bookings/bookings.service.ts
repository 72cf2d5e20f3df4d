import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import type { Batch } from '../../common/batch/batch.pipe.js';
import { AppError } from '../../common/errors/app-error.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { AppointmentsService } from '../appointments/appointments.service.js';
import type { PartnerPrincipal } from '../auth/principal.js';
import { CapacityService } from '../capacity/capacity.service.js';
import { covers } from '../capacity/rules.js';
import type { CreateItem } from '../records/record-input.js';
import type { RecordsPage } from '../records/records.service.js';
import type { CancelBookings } from './cancel-bookings.pipe.js';
import type { ListBookingsQuery } from './dto/booking.dto.js';

/**
 * Carriers booking terminals' slots (docs/capacity.md#carrier-booking): a booking is an appointment of the
 * terminal, made through the appointments engine (so every rule of appointments holds for it: layouts,
 * duplicate refs, capacity, events), with the carrier as its partner; the carrier lists and cancels only its own.
 */
@Injectable()
export class BookingsService {
  constructor(
    private readonly appointments: AppointmentsService,
    private readonly capacity: CapacityService,
    private readonly accounts: AccountsService,
  ) {}

  /**
   * POST /api/v1/terminals/{terminal_id}/bookings. Each item must be of a layout that a rule letting this carrier
   * book covers (FORBIDDEN first, before the terminal's layouts are looked at), then it is created as the
   * terminal's appointment, SCHEDULED, booked by the carrier; the capacity guard applies the rules' quotas.
   */
  async book(principal: PartnerPrincipal, terminalIdParam: string, batch: Batch<CreateItem>) {
    const carrierId = principal.accountId;
    const terminalId = terminalIdOf(terminalIdParam);
    const carrier = await this.accounts.findById(carrierId);
    return this.appointments.create(terminalId, batch, {
      columns: { booked_by_id: carrierId, booked_by_name: carrier!.name },
      before: async (manager) => {
        const rules = await this.capacity.bookableRules(terminalId, carrierId, manager);
        const refused = batch.items.filter((item) => !rules.some((rule) => covers(rule, item.appointment.layout_ref)));
        if (refused.length) {
          const layouts = [...new Set(refused.map((item) => item.appointment.layout_ref))];
          throw new AppError('FORBIDDEN', `No capacity rule bookable by you covers the layouts ${layouts.join(', ')}`, {
            refs: refused.map((item) => item.appointment.ref),
            layout_refs: layouts,
          });
        }
      },
    });
  }

  /** GET /api/v1/bookings: the carrier's bookings at every terminal (or one), as the appointments listing pages them. */
  list(principal: PartnerPrincipal, query: ListBookingsQuery): Promise<RecordsPage> {
    const { terminal_id: terminalId, ...filters } = query;
    return this.appointments.list(principal.accountId, filters, 'partner', terminalId?.toLowerCase());
  }

  /** DELETE /api/v1/bookings: cancels (DELETED) the carrier's bookings with these refs at the terminal; others are not found. */
  cancel(principal: PartnerPrincipal, { terminalId, refs }: CancelBookings) {
    return this.appointments.delete(terminalId, refs, principal.accountId);
  }
}

/** The terminal_id of a path, as the database spells it; VALIDATION_ERROR unless it is a UUID. */
export function terminalIdOf(param: string): string {
  if (!isUUID(param)) throw AppError.validation([{ path: 'terminal_id', message: 'terminal_id must be a UUID' }]);
  return param.toLowerCase();
}
