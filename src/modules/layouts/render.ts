import type { LayoutDefinition, LayoutElement } from './layout-schema.js';

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

function renderElement(element: LayoutElement, data: Record<string, unknown>): RenderedElement {
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
      return { ...element };
  }
}

/** Every part of a layout (card and modal, or ticket elements) with each path resolved against `data`. */
export function renderLayout(
  layout: { ref: string; name: string | null; definition: LayoutDefinition },
  data: Record<string, unknown>,
): RenderedLayout {
  const parts = Object.fromEntries(
    Object.entries(layout.definition).map(([part, elements]) => [part, elements.map((element) => renderElement(element, data))]),
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
