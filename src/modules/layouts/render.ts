import { preferredLanguage } from '../../common/http/accept-language.js';
import { LAYOUT_LANGUAGES, type LayoutDefinition, type LayoutElement, type LayoutLanguage, type LayoutText } from './layout-schema.js';

/** An element ready to draw: the layout's element plus `value` resolved from its path (null when absent). */
export type RenderedElement = LayoutElement & { value?: unknown; items?: (Record<string, unknown> & { value: unknown })[] };

export interface RenderedLayout {
  layout_ref: string;
  name: string | null;
  card_layout?: RenderedElement[];
  modal_layout?: RenderedElement[];
  elements?: RenderedElement[];
}

/** Resolves a dot path (`driver.tax_id`, `custom_data.container.number`) in `data`; null where it ends. */
export function resolvePath(data: unknown, path: string): unknown {
  let current = data;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key)) return null;
    current = (current as Record<string, unknown>)[key];
  }
  return current === undefined ? null : current;
}

/** The layout language an `Accept-Language` header prefers (pt-BR, es or en), or null when it names none of them. */
export const layoutLanguageOf = (acceptLanguage: string | string[] | undefined): LayoutLanguage | null =>
  preferredLanguage(acceptLanguage, LAYOUT_LANGUAGES);

/**
 * A layout text in `language`: a string as it is; of the object form, the text of that language, else English,
 * else the first it gives in the order pt-BR, es (the order its keys were written in is not kept: the database
 * stores JSON objects with their keys in an order of its own).
 */
export function textIn(text: LayoutText, language: LayoutLanguage | null): string {
  if (typeof text === 'string') return text;
  return (language && text[language]) || text.en || text['pt-BR'] || text.es || '';
}

/** The element with its texts (label, title, text, steps, tags' text, grid items' label) in `language`. */
function translated(element: LayoutElement, language: LayoutLanguage | null): LayoutElement {
  const out: LayoutElement = { ...element };
  for (const key of ['label', 'title', 'text'] as const) if (out[key] !== undefined) out[key] = textIn(out[key] as LayoutText, language);
  if (Array.isArray(out.steps)) out.steps = (out.steps as LayoutText[]).map((step) => textIn(step, language));
  if (Array.isArray(out.tags)) out.tags = (out.tags as { text: LayoutText }[]).map((tag) => ({ ...tag, text: textIn(tag.text, language) }));
  if (Array.isArray(out.items))
    out.items = (out.items as { label: LayoutText }[]).map((item) => ({ ...item, label: textIn(item.label, language) }));
  return out;
}

function renderElement(layoutElement: LayoutElement, data: Record<string, unknown>, language: LayoutLanguage | null): RenderedElement {
  const element = translated(layoutElement, language);
  switch (element.type) {
    case 'field':
    case 'highlight':
      return { ...element, value: resolvePath(data, element.path as string) };
    case 'qrcode': {
      // The value to encode, as text: the app feeds it to its QR encoder as is.
      const value = resolvePath(data, element.path as string);
      return { ...element, value: value === null || typeof value === 'string' ? value : JSON.stringify(value) };
    }
    case 'highlight_grid':
      return {
        ...element,
        items: (element.items as { label: string; path: string }[]).map((item) => ({ ...item, value: resolvePath(data, item.path) })),
      };
    default:
      return element;
  }
}

/**
 * Every part of a layout (card and modal, or ticket elements) with each path resolved against `data`, and each
 * text in `language` (textIn: a text given in several languages is drawn in one; null: English, else pt-BR, else es).
 */
export function renderLayout(
  layout: { ref: string; name: string | null; definition: LayoutDefinition },
  data: Record<string, unknown>,
  language: LayoutLanguage | null = null,
): RenderedLayout {
  const parts = Object.fromEntries(
    Object.entries(layout.definition).map(([part, elements]) => [part, elements.map((element) => renderElement(element, data, language))]),
  );
  return { layout_ref: layout.ref, name: layout.name, ...parts };
}

/**
 * What a path can reach in a trip or appointment: its own fields at the top level and under its noun
 * (`license_plate`, `appointment.license_plate`), `driver.*` and `custom_data.*` at any depth.
 */
export function recordContext(
  noun: 'trip' | 'appointment',
  record: Record<string, unknown>,
  driver: Record<string, unknown>,
): Record<string, unknown> {
  return { ...record, [noun]: record, driver, custom_data: record.custom_data ?? null };
}

/** What a ticket path can reach: `content.*`, the ticket's fields, and its `appointment.*` and `driver.*`. */
export function ticketContext(
  ticket: Record<string, unknown>,
  appointment: Record<string, unknown> | null,
  driver: Record<string, unknown> | null,
): Record<string, unknown> {
  return { ...ticket, ticket, content: ticket.content ?? null, appointment, driver, custom_data: appointment?.custom_data ?? null };
}
