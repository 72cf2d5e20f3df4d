import type { Schemas } from '../shared/schemas.js';

type DriverAppointment = Schemas['DriverAppointmentView'];
type DriverTrip = Schemas['DriverTripView'];

/**
 * A listed record as the app shows it: a status event may move it to a status its listing never returns
 * (COMPLETED, say) before the list is loaded again.
 */
export type Shown<T extends { status: string }> = Omit<T, 'status'> & { status: string };

export interface Records {
  appointments: Shown<DriverAppointment>[];
  trips: Shown<DriverTrip>[];
  tickets: Schemas['DriverTicketView'][];
}

/** The driver's records as last shown, with when they were loaded and whose they are (`ownerOf` the token). */
export interface Kept {
  owner: string;
  saved_at: string;
  records: Records;
}

const KEPT = 'gate.driver.kept';

/**
 * The last records and tickets shown are kept in this browser (never the token, which lives in the tab's session
 * only), so the ticket stays readable offline, after a reload and after the token has ended, until the driver signs out.
 */
export const kept = {
  get(): Kept | null {
    try {
      const text = localStorage.getItem(KEPT);
      return text ? (JSON.parse(text) as Kept) : null;
    } catch {
      return null;
    }
  },
  set(value: Kept): void {
    try {
      localStorage.setItem(KEPT, JSON.stringify(value));
    } catch {
      // Storage full or refused: the page still shows them while it is open.
    }
  },
  forget(): void {
    try {
      localStorage.removeItem(KEPT);
    } catch {
      // nothing kept
    }
  },
};
