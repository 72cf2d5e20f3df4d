import { AppError, type ValidationIssue } from '../../common/errors/app-error.js';
import { isPlainObject } from '../../common/validation/json-input.js';
import { REF_MAX } from '../../common/validation/validators.js';
import type { AccountKind } from '../accounts/account.entity.js';

export const LAYOUT_SETS = ['trip', 'appointment', 'ticket'] as const;
export type LayoutSet = (typeof LAYOUT_SETS)[number];

/** Which account kind owns each layout set. */
export const LAYOUT_SET_OWNER: Record<LayoutSet, AccountKind> = {
  trip: 'carrier',
  appointment: 'terminal',
  ticket: 'terminal',
};

export const ALERT_COLORS = ['purple', 'blue', 'green', 'yellow', 'red', 'gray'] as const;

/** The languages a layout text may be written in, as keys of its object form (docs/layouts.md). */
export const LAYOUT_LANGUAGES = ['pt-BR', 'es', 'en'] as const;
export type LayoutLanguage = (typeof LAYOUT_LANGUAGES)[number];
/** A text drivers read (a label, title, text, step or tag): one string for every reader, or the text of each language given. */
export type LayoutText = string | Partial<Record<LayoutLanguage, string>>;

export type LayoutElement = { type: string } & Record<string, unknown>;
export type CardLayoutDefinition = { card_layout: LayoutElement[]; modal_layout: LayoutElement[] };
export type TicketLayoutDefinition = { elements: LayoutElement[] };
export type LayoutDefinition = CardLayoutDefinition | TicketLayoutDefinition;

/** A field of an element: how to check it. */
type FieldRule =
  | { kind: 'text'; optional?: boolean }
  | { kind: 'words' }
  | { kind: 'path' }
  | { kind: 'color'; optional?: boolean }
  | { kind: 'texts' }
  | { kind: 'tags' }
  | { kind: 'items' };

const MAX_TEXT = 2000;
const MAX_ELEMENTS = 200;
const MAX_LIST = 100;
const PATH = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/;

/** Element kinds of card and modal layouts (trip and appointment sets). */
const CARD_ELEMENTS: Record<string, Record<string, FieldRule>> = {
  section: { title: { kind: 'words' } },
  field: { label: { kind: 'words' }, path: { kind: 'path' } },
  alert: { color: { kind: 'color' }, text: { kind: 'words' }, icon: { kind: 'text', optional: true } },
  qrcode: { path: { kind: 'path' } },
};

/** Element kinds of ticket layouts. */
const TICKET_ELEMENTS: Record<string, Record<string, FieldRule>> = {
  field: { label: { kind: 'words' }, path: { kind: 'path' } },
  section: { title: { kind: 'words' } },
  divider: {},
  tag_container: { tags: { kind: 'tags' } },
  attention: { text: { kind: 'words' }, icon: { kind: 'text', optional: true } },
  instruction: { steps: { kind: 'texts' } },
  text: { text: { kind: 'words' } },
  highlight: { label: { kind: 'words' }, path: { kind: 'path' } },
  highlight_grid: { items: { kind: 'items' } },
};

export const CARD_ELEMENT_TYPES = Object.keys(CARD_ELEMENTS);
export const TICKET_ELEMENT_TYPES = Object.keys(TICKET_ELEMENTS);

function checkText(value: unknown, path: string, issues: ValidationIssue[]): void {
  if (typeof value !== 'string' || value.trim() === '') issues.push({ path, message: 'must be a non-empty string' });
  else if (value.length > MAX_TEXT) issues.push({ path, message: `must be at most ${MAX_TEXT} characters` });
}

const LANGUAGE_LIST = LAYOUT_LANGUAGES.join(', ');
export const WORDS_MESSAGE = `must be a non-empty string, or an object of the text in each language, such as {"pt-BR": "Placa", "es": "Placa", "en": "Plate"}`;

/** A text drivers read: a non-empty string, or `{"pt-BR": …, "es": …, "en": …}` with at least one of them, and only those. */
function checkWords(value: unknown, path: string, issues: ValidationIssue[]): void {
  if (typeof value === 'string') return checkText(value, path, issues);
  if (!isPlainObject(value)) return void issues.push({ path, message: WORDS_MESSAGE });
  const languages = Object.keys(value);
  if (languages.length === 0) return void issues.push({ path, message: `must give the text in at least one of ${LANGUAGE_LIST}` });
  for (const language of languages) {
    if (!(LAYOUT_LANGUAGES as readonly string[]).includes(language)) {
      issues.push({ path: `${path}.${language}`, message: `is not a language of layout texts: use ${LANGUAGE_LIST}, written so` });
    } else checkText(value[language], `${path}.${language}`, issues);
  }
}

function checkList(value: unknown, path: string, issues: ValidationIssue[], each: (item: unknown, at: string) => void): void {
  if (!Array.isArray(value) || value.length === 0) return void issues.push({ path, message: 'must be a non-empty array' });
  if (value.length > MAX_LIST) return void issues.push({ path, message: `must have at most ${MAX_LIST} entries` });
  value.forEach((item, i) => each(item, `${path}[${i}]`));
}

function checkObject(value: unknown, path: string, rules: Record<string, FieldRule>, issues: ValidationIssue[]): void {
  if (!isPlainObject(value)) return void issues.push({ path, message: 'must be an object' });
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(rules, key)) issues.push({ path: `${path}.${key}`, message: 'is not a known property' });
  }
  for (const [key, rule] of Object.entries(rules)) checkField(value[key], `${path}.${key}`, rule, issues);
}

function checkField(value: unknown, path: string, rule: FieldRule, issues: ValidationIssue[]): void {
  if (value === undefined && 'optional' in rule && rule.optional) return;
  if (value === undefined) return void issues.push({ path, message: 'is required' });
  switch (rule.kind) {
    case 'text':
      return checkText(value, path, issues);
    case 'words':
      return checkWords(value, path, issues);
    case 'path':
      if (typeof value !== 'string' || value.length > 255 || !PATH.test(value)) {
        issues.push({ path, message: 'must be a dot path such as driver.tax_id or custom_data.container.number' });
      }
      return;
    case 'color':
      if (!ALERT_COLORS.includes(value as never)) issues.push({ path, message: `must be one of ${ALERT_COLORS.join(', ')}` });
      return;
    case 'texts':
      return checkList(value, path, issues, (item, at) => checkWords(item, at, issues));
    case 'tags':
      return checkList(value, path, issues, (item, at) =>
        checkObject(item, at, { text: { kind: 'words' }, color: { kind: 'color' } }, issues),
      );
    case 'items':
      return checkList(value, path, issues, (item, at) =>
        checkObject(item, at, { label: { kind: 'words' }, path: { kind: 'path' } }, issues),
      );
  }
}

function checkElements(value: unknown, path: string, kinds: Record<string, Record<string, FieldRule>>, issues: ValidationIssue[]): void {
  if (!Array.isArray(value)) return void issues.push({ path, message: 'must be an array of elements' });
  if (value.length > MAX_ELEMENTS) return void issues.push({ path, message: `must have at most ${MAX_ELEMENTS} elements` });
  value.forEach((element, i) => {
    const at = `${path}[${i}]`;
    if (!isPlainObject(element)) return void issues.push({ path: at, message: 'must be an object with a type' });
    const type = element.type;
    const rules = typeof type === 'string' && Object.hasOwn(kinds, type) ? kinds[type] : undefined;
    if (!rules) {
      return void issues.push({ path: `${at}.type`, message: `must be one of ${Object.keys(kinds).join(', ')}` });
    }
    checkObject(element, at, { type: { kind: 'text' }, ...rules }, issues);
  });
}

export interface LayoutBody {
  name?: string | null;
  definition: LayoutDefinition;
}

/** Validates a layout body of the given set; returns the issues found, each with its path. */
export function parseLayoutBody(set: LayoutSet, body: unknown): { value?: LayoutBody; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  if (!isPlainObject(body)) return { issues: [{ path: '', message: 'the body must be a JSON object' }] };
  const parts = set === 'ticket' ? ['elements'] : ['card_layout', 'modal_layout'];
  for (const key of Object.keys(body)) {
    if (key !== 'name' && !parts.includes(key)) issues.push({ path: key, message: 'is not a known property' });
  }
  if (body.name !== undefined && body.name !== null) {
    if (typeof body.name !== 'string' || body.name.length > 255)
      issues.push({ path: 'name', message: 'must be a string of at most 255 characters' });
  }
  const kinds = set === 'ticket' ? TICKET_ELEMENTS : CARD_ELEMENTS;
  for (const part of parts) checkElements(body[part], part, kinds, issues);
  if (issues.length > 0) return { issues };
  const definition = Object.fromEntries(parts.map((part) => [part, body[part]])) as LayoutDefinition;
  return { value: { name: (body.name as string | null | undefined) ?? null, definition }, issues };
}

/** VALIDATION_ERROR unless `ref` is a layout ref (1 to REF_MAX characters). */
export function checkLayoutRef(ref: unknown): string {
  if (typeof ref !== 'string' || ref.length < 1 || ref.length > REF_MAX) {
    throw AppError.validation([{ path: 'layout_ref', message: `must be 1 to ${REF_MAX} characters` }]);
  }
  return ref;
}
