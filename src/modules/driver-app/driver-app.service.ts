import { Injectable } from '@nestjs/common';
import type { LayoutLanguage, LayoutSet } from '../layouts/layout-schema.js';
import { AppointmentsService } from '../appointments/appointments.service.js';
import type { DriverPrincipal } from '../auth/principal.js';
import { driverAppView } from '../records/record-view.js';
import type { RecordsService } from '../records/records.service.js';
import { TripsService } from '../trips/trips.service.js';
import { recordContext, renderLayout, type RenderedLayout, ticketContext } from '../layouts/render.js';
import { TicketsService, toTicketView } from '../tickets/tickets.service.js';
import { DriverAppRepository, type LayoutRow } from './driver-app.repository.js';

const layoutKey = (ownerId: string, ref: string) => `${ownerId}\u0000${ref}`;

/**
 * The driver app's data: the driver's live records of the token's partner (its own, and the terminal appointments
 * a carrier booked), each with its layout rendered, so
 * one app draws every terminal's and carrier's screens without knowing the data model (docs/driver-tokens.md).
 */
@Injectable()
export class DriverAppService {
  constructor(
    private readonly repository: DriverAppRepository,
    private readonly appointmentRecords: AppointmentsService,
    private readonly tripRecords: TripsService,
    private readonly ticketRecords: TicketsService,
  ) {}

  /** `language`: of layout texts written in several languages, the one to draw (null: English, else the first given). */
  appointments(driver: DriverPrincipal, language: LayoutLanguage | null = null) {
    return this.records(this.appointmentRecords, driver, language);
  }

  trips(driver: DriverPrincipal, language: LayoutLanguage | null = null) {
    return this.records(this.tripRecords, driver, language);
  }

  private async records(
    records: RecordsService,
    driver: DriverPrincipal,
    language: LayoutLanguage | null,
  ): Promise<(Record<string, unknown> & { layout: RenderedLayout | null })[]> {
    const { noun, layoutSet } = records.def;
    const [rows, driverView] = await Promise.all([
      records.findLiveOfDriver(driver.driverId, driver.partnerId),
      this.repository.driver(driver.driverId),
    ]);
    const layouts = await this.layoutsFor(
      layoutSet,
      rows.map((row) => ({ owner_id: row.owner_id, layout_ref: row.layout_ref })),
    );
    return rows.map((row) => {
      const view = driverAppView(records.def, row);
      const layout = layouts.get(layoutKey(row.owner_id, row.layout_ref));
      return { ...view, layout: layout ? renderLayout(layout, recordContext(noun, view, driverView), language) : null };
    });
  }

  async tickets(
    driver: DriverPrincipal,
    language: LayoutLanguage | null = null,
  ): Promise<(Record<string, unknown> & { layout: RenderedLayout | null })[]> {
    const [appointments, driverView] = await Promise.all([
      this.appointmentRecords.findLiveOfDriver(driver.driverId, driver.partnerId),
      this.repository.driver(driver.driverId),
    ]);
    const appointmentViews = new Map(appointments.map((row) => [row.id, driverAppView(this.appointmentRecords.def, row)]));
    const tickets = await this.ticketRecords.findOfAppointments(appointments.map((row) => row.id));
    const layouts = await this.layoutsFor(
      'ticket',
      tickets.map((ticket) => ({ owner_id: ticket.terminal_id, layout_ref: ticket.layout_ref })),
    );
    return tickets.map((row) => {
      const ticket = toTicketView(row);
      const layout = layouts.get(layoutKey(row.terminal_id, row.layout_ref));
      const context = ticketContext(
        ticket as unknown as Record<string, unknown>,
        appointmentViews.get(row.appointment_id) ?? null,
        driverView,
      );
      return { ...ticket, layout: layout ? renderLayout(layout, context, language) : null };
    });
  }

  private async layoutsFor(set: LayoutSet, keys: { owner_id: string; layout_ref: string }[]) {
    const rows: LayoutRow[] = await this.repository.layouts(set, keys);
    return new Map(rows.map((row) => [layoutKey(row.owner_id, row.ref), row]));
  }
}
