import type english from '../messages/en.json';
import { formatTaxId, isUuid } from '../shared/format.js';
import type { LayoutName } from './layout-names.js';
import { roleWord } from './role-words.js';

type MessageKey = keyof typeof english;

/**
 * What the trail's words need of the page's Translator (web/src/shared/i18n.tsx), named here so the module stands
 * alone (its unit test runs it outside a browser).
 */
export interface AuditWords {
  language: string;
  t: (key: MessageKey, values?: Record<string, string | number | Date>) => string;
  status: (code: string) => string;
  time: (iso: string | null | undefined) => string;
}

/** Who made a change, as the trail and the records' logs name them (docs/audit.md#actors). */
export interface AuditActor {
  type: string;
  id: string | null;
  name: string | null;
  email?: string;
  key_id?: string;
  tax_id?: string;
}

/** The jobs of the service that name themselves in the trail, as words. */
const JOBS: Record<string, MessageKey> = {
  'no-show sweep': 'audit.actor.job.noShowSweep',
  'audit retention': 'audit.actor.job.retention',
};

/**
 * An actor in the reader's words: a person by name and email, a key by its label, a driver by their tax id
 * (formatted), a terminal's server, the service (and its job); never an id.
 */
export function actorWords({ t }: AuditWords, actor: AuditActor): string {
  switch (actor.type) {
    case 'user': {
      const { name, email } = actor;
      if (name && email) return t('audit.actor.person', { name, email });
      return name ?? email ?? t('audit.actor.someone');
    }
    case 'api_key':
      return actor.name ? t('audit.actor.key', { label: actor.name }) : t('audit.actor.keyUnnamed');
    case 'driver': {
      const taxId = actor.tax_id ?? '';
      const digits = taxId.replace(/\D/g, '').length;
      if (digits === 11) return t('audit.actor.driverCpf', { taxId: formatTaxId(taxId) });
      if (digits === 14) return t('audit.actor.driverCnpj', { taxId: formatTaxId(taxId) });
      return taxId ? t('audit.actor.driverTaxId', { taxId }) : t('audit.actor.driver');
    }
    case 'terminal':
      return actor.name ? t('audit.actor.terminalNamed', { name: actor.name }) : t('audit.actor.terminal');
    case 'system':
      return actor.name && JOBS[actor.name] ? t('audit.actor.serviceJob', { job: t(JOBS[actor.name]) }) : t('audit.actor.service');
    default:
      return t('audit.actor.someone');
  }
}

/**
 * The actions the trail records (docs/audit.md#actions), by resource, in the order the action filter lists them.
 * Each has a sentence in every language: `audit.action.<resource>.<verb>`.
 */
export const AUDIT_ACTIONS = {
  appointment: ['created', 'updated', 'status_changed', 'arrived', 'entered', 'departed', 'no_show', 'deleted'],
  trip: ['created', 'updated', 'status_changed', 'deleted'],
  ticket: ['created', 'updated', 'deleted'],
  checkin: ['created', 'accepted', 'rejected', 'timeout', 'offline', 'failed', 'updated', 'deleted'],
  gate_read: ['created', 'matched', 'referred', 'updated', 'deleted'],
  gate_referral: ['created', 'resolved', 'updated', 'deleted'],
  layout: ['created', 'updated', 'deleted'],
  capacity_rule: ['created', 'updated', 'deleted'],
  webhook: ['created', 'updated', 'disabled', 'enabled', 'deleted'],
  session: ['created', 'failed', 'ended', 'updated', 'deleted'],
  user: ['created', 'updated', 'role_changed', 'password_changed', 'mfa_enabled', 'mfa_disabled', 'deactivated', 'reactivated', 'deleted'],
  invitation: ['created', 'accepted', 'updated', 'deleted'],
  api_key: ['created', 'updated', 'revoked', 'deleted'],
  account: ['created', 'updated', 'deleted'],
  sso: ['created', 'updated', 'deleted'],
  driver_tokens: ['created', 'revoked', 'updated', 'deleted'],
  sign_in_code: ['created', 'updated', 'deleted'],
} as const;
export type AuditResource = keyof typeof AUDIT_ACTIONS;

const isResource = (resource: string): resource is AuditResource => Object.hasOwn(AUDIT_ACTIONS, resource);
const isKnown = (resource: string, verb: string): boolean =>
  isResource(resource) && (AUDIT_ACTIONS[resource] as readonly string[]).includes(verb);

/** A resource as a word ("Agendamentos"), for the action filter's groups. */
export const resourceWord = ({ t }: AuditWords, resource: AuditResource): string => t(`audit.resource.${resource}`);

/** An action as a sentence without its target's ref ("alterou o agendamento"); one the panel does not know, by its resource. */
export function actionSentence({ t }: AuditWords, action: string): string {
  const [resource, verb] = action.split('.');
  if (isKnown(resource, verb)) return t(`audit.action.${resource}.${verb}` as MessageKey);
  return isResource(resource) ? t('audit.action.other', { resource: t(`audit.resource.${resource}`) }) : t('audit.action.unknown');
}

/** Why a sign-in was refused (a `session.failed` entry's change), as words. */
const REASONS: Record<string, MessageKey> = {
  unknown_email: 'audit.reason.unknown_email',
  wrong_password: 'audit.reason.wrong_password',
  inactive_user: 'audit.reason.inactive_user',
  wrong_code: 'audit.reason.wrong_code',
  sso_required: 'audit.reason.sso_required',
};

/** What an entry needs to be said in words. */
export interface AuditEntryLike {
  action: string;
  target: { type: string; ref?: string | null };
  changes: Record<string, unknown[]> | null;
}

/** The target as people know it: a record's ref, a person's email, a key's label in «», a layout's name. */
function targetWords(entry: AuditEntryLike, layoutName: LayoutName): string | null {
  const ref = entry.target.ref;
  if (!ref || isUuid(ref)) return null;
  switch (entry.target.type) {
    case 'api_key':
    case 'webhook':
      return `«${ref}»`;
    case 'ticket':
      return `«${layoutName('ticket', ref)}»`;
    default:
      return ref;
  }
}

/** What an entry did, as a sentence with its target: "alterou o agendamento APPT-1", "não conseguiu entrar (senha errada)". */
export function whatWords(i18n: AuditWords, entry: AuditEntryLike, layoutName: LayoutName): string {
  const { t } = i18n;
  if (entry.action === 'session.failed') {
    const reason = entry.changes?.reason?.[1];
    const key = typeof reason === 'string' ? REASONS[reason] : undefined;
    return t('audit.action.session.failedBecause', { reason: t(key ?? 'audit.reason.other') });
  }
  // A session's entries are the person's own signing in and out: the actor says who.
  if (entry.target.type === 'session') return actionSentence(i18n, entry.action);
  const target = targetWords(entry, layoutName);
  return target ? `${actionSentence(i18n, entry.action)} ${target}` : actionSentence(i18n, entry.action);
}

/** A record's fields as words, as its history and the trail name them. */
export const RECORD_FIELDS: Record<string, MessageKey> = {
  window_start: 'historyLine.field.window_start',
  window_end: 'historyLine.field.window_end',
  start_tolerance: 'historyLine.field.start_tolerance',
  end_tolerance: 'historyLine.field.end_tolerance',
  license_plate: 'historyLine.field.license_plate',
  summary: 'historyLine.field.summary',
  layout_ref: 'historyLine.field.layout_ref',
  custom_data: 'historyLine.field.custom_data',
  status: 'historyLine.field.status',
};

/** The fields of the trail's changes the panel has words for; others show as the service names them. */
const FIELDS: Record<string, MessageKey> = {
  ...RECORD_FIELDS,
  driver_id: 'historyLine.field.driver',
  name: 'users.name',
  email: 'users.email',
  role: 'users.role',
  password_hash: 'audit.field.password',
  mfa_enabled: 'users.mfa',
  mfa_secret: 'audit.field.mfaSecret',
  recovery_codes: 'audit.field.recoveryCodes',
  key_hash: 'audit.field.key',
  secret: 'audit.field.secret',
  client_secret: 'audit.field.secret',
  previous_secret: 'audit.field.secret',
  revoked_at: 'audit.field.revokedAt',
  expires_at: 'audit.field.expiresAt',
  ended_at: 'audit.field.endedAt',
  enabled: 'audit.field.enabled',
  url: 'audit.field.url',
  events: 'audit.field.events',
  description: 'audit.field.description',
  require_mfa: 'account.requireMfa',
  no_show_at: 'audit.field.noShowAt',
  arrived_at: 'audit.field.arrivedAt',
  entered_at: 'audit.field.enteredAt',
  departed_at: 'audit.field.departedAt',
  content: 'audit.field.content',
};

const USER_STATUSES: Record<string, MessageKey> = {
  invited: 'users.status.invited',
  active: 'users.status.active',
  deactivated: 'users.status.deactivated',
};

const WITHHELD = '[withheld]';
const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?$/i;

/** A value of a change as people read it: dates through Intl, statuses and roles as words, a secret as "hidden". */
function valueWords(i18n: AuditWords, field: string, value: unknown): string {
  const { t } = i18n;
  if (value === null || value === undefined || value === '') return '—';
  if (value === WITHHELD) return t('audit.value.withheld');
  if (typeof value === 'boolean') return t(value ? 'format.yes' : 'format.no');
  if (typeof value === 'number') return new Intl.NumberFormat(i18n.language, { maximumFractionDigits: 6 }).format(value);
  if (typeof value === 'string') {
    if (ISO_INSTANT.test(value)) return i18n.time(value);
    if (field === 'status') return USER_STATUSES[value] ? t(USER_STATUSES[value]) : i18n.status(value);
    if (field === 'role') return roleWord(t, value);
    if (field.endsWith('tax_id')) return formatTaxId(value);
    return value;
  }
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.join(', ');
  return JSON.stringify(value);
}

/** One change of an entry in words: "placa: ABC1D23 → XYZ9K87"; a change between ids (another driver) names the field alone. */
export interface ChangeLine {
  field: string;
  /** "ABC1D23 → XYZ9K87", or null when its values are ids, which people are not shown. */
  values: string | null;
}

/** An entry's changes in words, but for what its sentence says already (a refused sign-in's reason). */
export function changeLines(i18n: AuditWords, entry: AuditEntryLike): ChangeLine[] {
  if (!entry.changes || entry.action === 'session.failed') return [];
  return Object.entries(entry.changes).map(([field, pair]) => {
    const [before, after] = Array.isArray(pair) ? pair : [undefined, undefined];
    const named = FIELDS[field] ? i18n.t(FIELDS[field]) : field.replace(/_/g, ' ');
    const word = named.charAt(0).toLocaleUpperCase(i18n.language) + named.slice(1);
    const ids = [before, after].some((value) => typeof value === 'string' && isUuid(value));
    if (ids) return { field: word, values: null };
    return { field: word, values: `${valueWords(i18n, field, before)} → ${valueWords(i18n, field, after)}` };
  });
}
