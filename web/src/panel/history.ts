import type english from '../messages/en.json';

type MessageKey = keyof typeof english;

/**
 * What the history needs of the page's Translator (web/src/shared/i18n.tsx), named here so the module stands alone
 * (its unit test runs it outside a browser).
 */
export interface HistoryWords {
  language: string;
  t: (key: MessageKey, values?: Record<string, string | number | Date>) => string;
  status: (code: string) => string;
  time: (iso: string | null | undefined) => string;
}

/** A layout as people know it: its name, else its ref (layout-names.ts gives the panel's). */
type LayoutName = (set: 'appointment' | 'ticket' | 'trip', ref: string | null | undefined) => string;

/**
 * A record's history entry in the reader's words. The service logs each entry's `event` with an English `message`
 * for the API (with ids: "Ticket <uuid> created (layout demo-ticket)"); the panel draws the entry from its event and
 * the facts the message carries (a layout, the terminal's reason, the fields changed, the statuses), never the
 * English, never an id. An entry the panel cannot read more of shows its event's word alone.
 */
export interface HistoryLine {
  /** The event as a word: "Check-in aceito". */
  title: string;
  /** What happened, when there is more to say than the title: "Ticket criado (layout Passe de portão)". */
  detail: string | null;
}

const EVENTS: Record<string, MessageKey> = {
  created: 'history.created',
  updated: 'history.updated',
  checkin_requested: 'history.checkin_requested',
  checkin_rejected: 'history.checkin_rejected',
  checkin_failed: 'history.checkin_failed',
  checked_in: 'history.checked_in',
  in_transit: 'history.in_transit',
  on_going: 'history.on_going',
  completed: 'history.completed',
  deleted: 'history.deleted',
  no_show: 'history.no_show',
  ticket_created: 'history.ticket_created',
  ticket_updated: 'history.ticket_updated',
  ticket_deleted: 'history.ticket_deleted',
};

/** The fields an update names, as words. */
const FIELDS: Record<string, MessageKey> = {
  window_start: 'historyLine.field.window_start',
  window_end: 'historyLine.field.window_end',
  start_tolerance: 'historyLine.field.start_tolerance',
  end_tolerance: 'historyLine.field.end_tolerance',
  license_plate: 'historyLine.field.license_plate',
  summary: 'historyLine.field.summary',
  layout_ref: 'historyLine.field.layout_ref',
  custom_data: 'historyLine.field.custom_data',
  status: 'historyLine.field.status',
  driver: 'historyLine.field.driver',
};

const STATUS_CHANGE = /Status changed from ([A-Z_]+) to ([A-Z_]+)/;
const LAYOUT = /\(layout (.+)\)\s*$/;
const REFUSED = /The terminal refused the check-in: ([\s\S]*)$/;
const NO_SHOW_BY = /not checked in by (\S+?),/;

/** One history entry of an appointment or trip, in the reader's language. */
export function historyLine(
  i18n: HistoryWords,
  noun: 'appointment' | 'trip',
  entry: { event: string; message: string },
  layoutName: LayoutName,
): HistoryLine {
  const { t } = i18n;
  const title = EVENTS[entry.event] ? t(EVENTS[entry.event]) : t('historyLine.other');
  const message = entry.message ?? '';
  const detail = ((): string | null => {
    const status = STATUS_CHANGE.exec(message);
    if (status) return t('historyLine.status', { from: i18n.status(status[1]), to: i18n.status(status[2]) });
    switch (entry.event) {
      case 'created':
        return t(noun === 'appointment' ? 'historyLine.created.appointment' : 'historyLine.created.trip');
      case 'updated': {
        const fields = message
          .replace(/^Updated\s+/, '')
          .split(/,\s*/)
          .filter(Boolean);
        if (!fields.length) return null;
        const words = fields.map((field) => (FIELDS[field] ? t(FIELDS[field]) : t('historyLine.field.other')));
        return t('historyLine.updated', { fields: list(i18n, [...new Set(words)]) });
      }
      case 'checkin_requested':
        return message.includes('by the driver') ? t('historyLine.requested.driver') : t('historyLine.requested.terminal');
      case 'checkin_rejected': {
        const reason = REFUSED.exec(message)?.[1]?.trim();
        return reason ? t('historyLine.rejected', { reason }) : t('historyLine.rejectedNoReason');
      }
      case 'checkin_failed':
        if (/not connected/.test(message)) return t('historyLine.failed.offline');
        if (/did not answer/.test(message)) return t('historyLine.failed.timeout');
        if (/interrupted/.test(message)) return t('historyLine.failed.interrupted');
        return t('historyLine.failed.unusable');
      case 'checked_in':
        if (/accepted by the terminal server/.test(message)) return t('historyLine.accepted');
        if (/confirmed by the terminal/.test(message)) return t('historyLine.confirmed');
        if (/Arrived at the terminal's gate/.test(message)) return t('historyLine.arrived');
        return null;
      case 'no_show': {
        const by = NO_SHOW_BY.exec(message)?.[1];
        return by ? t('historyLine.noShow', { time: i18n.time(by) }) : null;
      }
      case 'ticket_created':
      case 'ticket_updated':
      case 'ticket_deleted': {
        const layout = LAYOUT.exec(message)?.[1];
        const verb = entry.event.slice('ticket_'.length) as 'created' | 'updated' | 'deleted';
        return layout ? t(`historyLine.ticket.${verb}`, { layout: layoutName('ticket', layout) }) : null;
      }
      default:
        return null;
    }
  })();
  return { title, detail: detail === title ? null : detail };
}

/** Words joined as the language joins a list ("janela, placa e resumo"). */
function list({ language }: HistoryWords, words: string[]): string {
  return new Intl.ListFormat(language, { style: 'long', type: 'conjunction' }).format(words);
}
