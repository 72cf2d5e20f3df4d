import { ApiError } from './api.js';
import type { MessageKey, Translator } from './i18n.js';

/** Errors whose meaning does not depend on where they happen, in the reader's language; others keep the service's words. */
const GENERAL: Record<string, MessageKey> = {
  OFFLINE: 'error.OFFLINE',
  UNAUTHORIZED: 'error.UNAUTHORIZED',
  FORBIDDEN: 'error.FORBIDDEN',
  RATE_LIMITED: 'error.RATE_LIMITED',
  SERVICE_UNAVAILABLE: 'error.SERVICE_UNAVAILABLE',
  INTERNAL_ERROR: 'error.INTERNAL_ERROR',
};

/** Any failure as one line for the page. */
export function explainError({ t }: Translator, error: unknown): string {
  if (error instanceof ApiError) return GENERAL[error.code] ? t(GENERAL[error.code]) : error.message;
  return error instanceof Error ? error.message : String(error);
}

/** What a check-in outcome means for the driver standing at the gate, and what to do next. */
export function explainCheckin(i18n: Translator, error: unknown): string {
  const { t } = i18n;
  if (!(error instanceof ApiError)) return t('checkin.unexpected');
  const details = (error.details ?? {}) as Record<string, unknown>;
  switch (error.code) {
    case 'CHECKIN_REJECTED':
      return typeof details.reason === 'string' && details.reason
        ? t('checkin.rejectedWithReason', { reason: details.reason.trim().replace(/[.!]+$/, '') })
        : t('checkin.rejected');
    case 'CHECKIN_OUTSIDE_WINDOW':
      return t('checkin.outsideWindow', {
        from: i18n.time(details.admissible_from as string),
        until: i18n.time(details.admissible_until as string),
      });
    case 'TERMINAL_OFFLINE':
      return t('checkin.terminalOffline');
    case 'TERMINAL_TIMEOUT':
      return t('checkin.terminalTimeout');
    case 'CHECKIN_FAILED':
      return t('checkin.failed');
    case 'CHECKIN_IN_PROGRESS':
      return t('checkin.inProgress');
    case 'INVALID_STATUS_TRANSITION':
      return typeof details.from === 'string' && details.from
        ? t('checkin.notWaiting', { status: i18n.status(details.from) })
        : t('checkin.notWaitingAnyMore');
    case 'NOT_FOUND':
      return t('checkin.notFound');
    case 'SERVICE_UNAVAILABLE':
      return t('checkin.restarting');
    case 'RATE_LIMITED':
      return t('checkin.rateLimited');
    case 'OFFLINE':
      return t('checkin.offline');
    default:
      return error.message;
  }
}

/** Why a layout cannot be deleted, in the words of the panel (the service names the kind of records that hold it). */
export function explainLayoutInUse({ t }: Translator, ref: string, error: ApiError): string {
  const [users] = ((error.details ?? {}) as { used_by?: string[] }).used_by ?? [];
  const key: MessageKey =
    users === 'appointments'
      ? 'layouts.inUse.appointments'
      : users === 'trips'
        ? 'layouts.inUse.trips'
        : users === 'tickets'
          ? 'layouts.inUse.tickets'
          : 'layouts.inUse.records';
  return t(key, { ref });
}

/**
 * Why a booking (or its cancellation) was refused, in words: the capacity codes with the slot they name, shown by
 * `when` (an instant on the rule's clock); the others as explainError does.
 */
export function explainBooking(i18n: Translator, error: unknown, when: (iso: string) => string): string {
  const { t } = i18n;
  if (!(error instanceof ApiError)) return explainError(i18n, error);
  const details = (error.details ?? {}) as {
    slots?: { start: string; capacity?: number; booked?: number; quota?: number }[];
    refs?: string[] | string;
    layout_refs?: string[];
    ref?: string;
    from?: string;
  };
  const [slot] = details.slots ?? [];
  const refs = [details.refs ?? []].flat().join(', ');
  switch (error.code) {
    case 'SLOT_FULL':
      return slot
        ? t('booking.error.full', { when: when(slot.start), booked: slot.booked ?? 0, capacity: slot.capacity ?? 0 })
        : t('booking.error.fullAny');
    case 'SLOT_CLOSED':
      return slot ? t('booking.error.closed', { when: when(slot.start) }) : t('booking.error.closedAny');
    case 'QUOTA_EXCEEDED':
      return slot
        ? t('booking.error.quota', { when: when(slot.start), booked: slot.booked ?? 0, quota: slot.quota ?? 0 })
        : t('booking.error.quotaAny');
    case 'FORBIDDEN':
      return t('booking.error.forbidden');
    case 'DUPLICATE_KEY':
      return t('booking.error.duplicate', { refs });
    case 'INVALID_LAYOUT_REF':
      return t('booking.error.layout', { refs: (details.layout_refs ?? []).join(', ') });
    case 'REFS_NOT_FOUND':
      return t('booking.error.notYours', { refs });
    case 'INVALID_STATUS_TRANSITION':
      return t('booking.error.status', { ref: details.ref ?? '', status: i18n.status(details.from ?? '') });
    case 'IDEMPOTENCY_KEY_IN_USE':
      return t('booking.error.inProgress');
    default:
      return explainError(i18n, error);
  }
}
