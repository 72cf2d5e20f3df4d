import { ApiError } from './api.js';
import { formatTime } from './format.js';

/** What a check-in outcome means for the driver standing at the gate, and what to do next. */
export function explainCheckin(error: unknown): string {
  if (!(error instanceof ApiError)) return 'The check-in failed unexpectedly. Try again.';
  const details = (error.details ?? {}) as Record<string, unknown>;
  switch (error.code) {
    case 'CHECKIN_REJECTED':
      return `The terminal refused the check-in${details.reason ? `: ${String(details.reason)}` : ''}. Go to the gate office.`;
    case 'CHECKIN_OUTSIDE_WINDOW':
      return `It is outside your time slot: the gate accepts you from ${formatTime(details.admissible_from as string)} until ${formatTime(details.admissible_until as string)}.`;
    case 'TERMINAL_OFFLINE':
      return "The terminal's gate system is not connected right now. Try again in a minute, or go to the gate office.";
    case 'TERMINAL_TIMEOUT':
      return "The terminal's gate system did not answer in time. Try again.";
    case 'CHECKIN_FAILED':
      return "The terminal's answer could not be used. Try again, or go to the gate office.";
    case 'CHECKIN_IN_PROGRESS':
      return 'This check-in is still waiting for the terminal. Wait a moment.';
    case 'INVALID_STATUS_TRANSITION':
      return `This appointment is no longer waiting for check-in (it is ${String(details.from ?? 'in another status')}).`;
    case 'NOT_FOUND':
      return 'This appointment was removed or is no longer yours.';
    case 'SERVICE_UNAVAILABLE':
      return 'The service is restarting. Try again in a moment.';
    case 'RATE_LIMITED':
      return 'Too many attempts. Wait a minute and try again.';
    case 'OFFLINE':
      return 'You are offline: checking in needs a connection.';
    default:
      return error.message;
  }
}

/** Why a layout cannot be deleted, in the words of the panel. */
export function explainLayoutInUse(error: ApiError): string {
  const details = (error.details ?? {}) as { used_by?: string[] };
  const users = details.used_by?.length ? details.used_by.join(' and ') : 'records';
  return `This layout is still used by live ${users}. Move those records to another layout, or delete them, before deleting it (deleted records do not count).`;
}
