import { type Language, LANGUAGES, type MessageKey, type Translator } from '../shared/i18n.js';

/** What the layout editor knows of each element kind: the fields it edits and a new element's starting values. */
export type FieldKind = 'text' | 'optional-text' | 'path' | 'color' | 'steps' | 'tags' | 'items';

export interface KindSpec {
  label: MessageKey;
  fields: [name: string, label: MessageKey, kind: FieldKind][];
  /** A new element's values, in the editor's language (the partner then writes its own). */
  create(set: LayoutSet, t: Translator['t']): Record<string, unknown>;
}

export type LayoutSet = 'trip' | 'appointment' | 'ticket';

export const ALERT_COLORS = ['purple', 'blue', 'green', 'yellow', 'red', 'gray'] as const;

const samplePath = (set: LayoutSet) => (set === 'ticket' ? 'content.gate' : 'ref');

const section: KindSpec = {
  label: 'kind.section',
  fields: [['title', 'field.title', 'text']],
  create: (_set, t) => ({ title: t('new.section') }),
};
const field: KindSpec = {
  label: 'kind.field',
  fields: [
    ['label', 'field.label', 'text'],
    ['path', 'field.path', 'path'],
  ],
  create: (set, t) => ({ label: t('new.label'), path: samplePath(set) }),
};

/** Card and detail-modal elements (trip and appointment layouts). */
export const CARD_KINDS: Record<string, KindSpec> = {
  section,
  field,
  alert: {
    label: 'kind.alert',
    fields: [
      ['color', 'field.color', 'color'],
      ['text', 'field.text', 'text'],
      ['icon', 'field.icon', 'optional-text'],
    ],
    create: (_set, t) => ({ color: 'yellow', text: t('new.note'), icon: 'warning' }),
  },
  qrcode: { label: 'kind.qrcode', fields: [['path', 'field.path', 'path']], create: () => ({ path: 'ref' }) },
};

/** Ticket elements. */
export const TICKET_KINDS: Record<string, KindSpec> = {
  field,
  section,
  divider: { label: 'kind.divider', fields: [], create: () => ({}) },
  tag_container: {
    label: 'kind.tag_container',
    fields: [['tags', 'field.tags', 'tags']],
    create: (_set, t) => ({ tags: [{ text: t('new.tag'), color: 'blue' }] }),
  },
  attention: {
    label: 'kind.attention',
    fields: [
      ['text', 'field.text', 'text'],
      ['icon', 'field.icon', 'optional-text'],
    ],
    create: (_set, t) => ({ text: t('new.attention'), icon: 'alert' }),
  },
  instruction: {
    label: 'kind.instruction',
    fields: [['steps', 'field.steps', 'steps']],
    create: (_set, t) => ({ steps: [t('new.step')] }),
  },
  text: { label: 'kind.text', fields: [['text', 'field.text', 'text']], create: (_set, t) => ({ text: t('new.text') }) },
  highlight: {
    label: 'kind.highlight',
    fields: [
      ['label', 'field.label', 'text'],
      ['path', 'field.path', 'path'],
    ],
    create: (_set, t) => ({ label: t('new.gate'), path: 'content.gate' }),
  },
  highlight_grid: {
    label: 'kind.highlight_grid',
    fields: [['items', 'field.items', 'items']],
    create: (_set, t) => ({ items: [{ label: t('new.lane'), path: 'content.lane' }] }),
  },
};

export const kindsOf = (set: LayoutSet) => (set === 'ticket' ? TICKET_KINDS : CARD_KINDS);
/** The parts of a layout of the set: each with its name and the label of its "add an element" choice. */
export const partsOf = (set: LayoutSet): [part: string, label: MessageKey, add: MessageKey][] =>
  set === 'ticket'
    ? [['elements', 'part.ticket', 'part.ticket.add']]
    : [
        ['card_layout', 'part.card', 'part.card.add'],
        ['modal_layout', 'part.modal', 'part.modal.add'],
      ];

/**
 * A text drivers read, as a layout holds it: a string for every driver, or the text of each language given
 * (`{"pt-BR": …, "es": …, "en": …}`, docs/layouts.md). The editor shows and edits the text of the panel's language
 * and keeps the others as they are.
 */
export type Texts = Partial<Record<Language, string>>;

/** Whether a layout text is the object form (the text of each language given). */
export const isTexts = (value: unknown): value is Texts => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the editor shows of a text in `language`: a string as it is; of the object form, that language's text ('' if none). */
export const textOf = (value: unknown, language: Language): string =>
  typeof value === 'string' ? value : isTexts(value) ? (value[language] ?? '') : '';

/**
 * The text after the person typed `text` in `language`: a string (or nothing yet) stays one; in the object form only
 * that language changes (emptied, it goes; the others are kept), and with no language left it is '' (which the
 * service refuses as empty, at its field).
 */
export function withText(value: unknown, language: Language, text: string): unknown {
  if (!isTexts(value)) return text;
  const next: Texts = { ...value };
  if (text === '') delete next[language];
  else next[language] = text;
  return Object.keys(next).length ? next : '';
}

/** The languages other than `language` a text is written in (none for a string), in the order of the language switch. */
export const otherLanguages = (value: unknown, language: Language): Language[] =>
  isTexts(value) ? LANGUAGES.filter((other) => other !== language && value[other] !== undefined) : [];

/** What drivers of `language` see of a text without it: as the service falls back (English, else pt-BR, else es). */
export const fallbackOf = (value: unknown, language: Language): string | null =>
  isTexts(value) && !value[language] ? (value.en ?? value['pt-BR'] ?? value.es ?? null) : null;
