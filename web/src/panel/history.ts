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

/** A history entry as GET …/logs gives it: its event, and its facts (null on entries logged before there were any). */
export interface HistoryEntry {
  event: string;
  data?: Record<string, unknown> | null;
}

/**
 * A record's history entry in the reader's words, drawn from its `event` and its `data` (docs/statuses.md#history-entries),
 * never from the service's English `message`, and never showing an id. An entry without data (logged before entries
 * had any), or one the panel cannot read more of, shows its event's word alone.
 */
export interface HistoryLine {
  /** The event as a word: "Check-in feito". */
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
  checkin_joined: 'history.checkin_joined',
  checked_in: 'history.checked_in',
  in_transit: 'history.in_transit',
  on_going: 'history.on_going',
  completed: 'history.completed',
  deleted: 'history.deleted',
  no_show: 'history.no_show',
  arrived: 'history.arrived',
  entered: 'history.entered',
  departed: 'history.departed',
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

const FAILURES: Record<string, MessageKey> = {
  offline: 'historyLine.failed.offline',
  timeout: 'historyLine.failed.timeout',
  interrupted: 'historyLine.failed.interrupted',
};

const GATE: Record<string, MessageKey> = {
  arrival: 'historyLine.gate.arrival',
  entry: 'historyLine.gate.entry',
  exit: 'historyLine.gate.exit',
};

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

/** One history entry of an appointment or trip, in the reader's language. */
export function historyLine(i18n: HistoryWords, noun: 'appointment' | 'trip', entry: HistoryEntry, layoutName: LayoutName): HistoryLine {
  const { t } = i18n;
  const data = entry.data ?? null;
  const to = text(data?.to);
  // A status move's event is its new status in lower case: one the panel has no word for reads as the status.
  const title = EVENTS[entry.event] ? t(EVENTS[entry.event]) : to ? i18n.status(to) : t('historyLine.other');
  const detail = data ? detailOf(i18n, noun, entry.event, data, layoutName) : null;
  return { title, detail: detail === title ? null : detail };
}

function detailOf(
  i18n: HistoryWords,
  noun: 'appointment' | 'trip',
  event: string,
  data: Record<string, unknown>,
  layoutName: LayoutName,
): string | null {
  const { t } = i18n;
  const gate = (): string | null => {
    const key = GATE[String(data.stage)];
    const plate = text(data.plate);
    return key && plate ? t(key, { plate, lane: text(data.lane) ?? '—' }) : null;
  };
  switch (event) {
    case 'created':
      return t(noun === 'appointment' ? 'historyLine.created.appointment' : 'historyLine.created.trip');
    case 'updated': {
      const fields = Array.isArray(data.fields) ? data.fields.filter((field): field is string => typeof field === 'string') : [];
      if (!fields.length) return null;
      const words = fields.map((field) => t(FIELDS[field] ?? 'historyLine.field.other'));
      return t('historyLine.updated', { fields: list(i18n, [...new Set(words)]) });
    }
    case 'checkin_requested':
      if (data.resumed === true) return t('historyLine.requested.resumed');
      if (data.source === 'driver') return t('historyLine.requested.driver');
      if (data.source === 'plate') return t('historyLine.requested.plate');
      return t('historyLine.requested.terminal');
    case 'checkin_rejected': {
      const reason = text(data.reason);
      return reason ? t('historyLine.rejected', { reason }) : t('historyLine.rejectedNoReason');
    }
    case 'checkin_failed':
      return t(FAILURES[String(data.outcome)] ?? 'historyLine.failed.unusable');
    case 'checkin_joined':
      return t('historyLine.joined');
    case 'arrived':
    case 'entered':
    case 'departed':
      return gate();
    case 'no_show': {
      const until = text(data.admissible_until);
      return until ? t('historyLine.noShow', { time: i18n.time(until) }) : null;
    }
    case 'ticket_created':
    case 'ticket_updated':
    case 'ticket_deleted': {
      const layout = text(data.layout_ref);
      const verb = event.slice('ticket_'.length) as 'created' | 'updated' | 'deleted';
      return layout ? t(`historyLine.ticket.${verb}`, { layout: layoutName('ticket', layout) }) : null;
    }
    default: {
      const from = text(data.from);
      const to = text(data.to);
      if (!from || !to) return null;
      if (data.via === 'checkin') return t(data.outcome === 'confirmed' ? 'historyLine.confirmed' : 'historyLine.accepted');
      if (data.via === 'arrival') return t('historyLine.arrived');
      return gate() ?? t('historyLine.status', { from: i18n.status(from), to: i18n.status(to) });
    }
  }
}

/** Words joined as the language joins a list ("janela, placa e resumo"). */
function list({ language }: HistoryWords, words: string[]): string {
  return new Intl.ListFormat(language, { style: 'long', type: 'conjunction' }).format(words);
}
