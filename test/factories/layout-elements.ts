import fc from 'fast-check';
import { ALERT_COLORS } from '../../src/modules/layouts/layout-schema.js';

/** A valid element of every kind, with its optional fields. */
export const CARD_KINDS: Record<string, Record<string, unknown>> = {
  section: { type: 'section', title: 'Pickup' },
  field: { type: 'field', label: 'Driver', path: 'driver.tax_id' },
  alert: { type: 'alert', color: 'yellow', text: 'Bring the seal', icon: 'warning' },
  qrcode: { type: 'qrcode', path: 'appointment.id' },
};
export const TICKET_KINDS: Record<string, Record<string, unknown>> = {
  field: { type: 'field', label: 'Gate', path: 'content.gate' },
  section: { type: 'section', title: 'Gate' },
  divider: { type: 'divider' },
  tag_container: { type: 'tag_container', tags: [{ text: 'Reefer', color: 'blue' }] },
  attention: { type: 'attention', text: 'Stop at the scale', icon: 'alert' },
  instruction: { type: 'instruction', steps: ['Go to lane 3', 'Wait for the light'] },
  text: { type: 'text', text: 'Have a good trip' },
  highlight: { type: 'highlight', label: 'Bay', path: 'content.bay' },
  highlight_grid: { type: 'highlight_grid', items: [{ label: 'Row', path: 'content.row' }] },
};

/** Any dot path the layout rules take, up to five segments. */
export const dotPath = fc
  .tuple(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,11}$/), fc.array(fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/), { maxLength: 4 }))
  .map(([head, rest]) => [head, ...rest].join('.'));

/** Valid layout bodies (trip and appointment sets: `card`; ticket set: `ticket`), their paths drawn from `path`. */
export function layoutBodies(path: fc.Arbitrary<string> = dotPath) {
  const text = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== '');
  const color = fc.constantFrom(...ALERT_COLORS);
  const list = <T>(arb: fc.Arbitrary<T>) => fc.array(arb, { minLength: 1, maxLength: 5 });
  const cardElement = fc.oneof(
    fc.record({ type: fc.constant('section'), title: text }),
    fc.record({ type: fc.constant('field'), label: text, path }),
    fc.record({ type: fc.constant('alert'), color, text, icon: text }, { requiredKeys: ['type', 'color', 'text'] }),
    fc.record({ type: fc.constant('qrcode'), path }),
  );
  const ticketElement = fc.oneof(
    fc.record({ type: fc.constant('field'), label: text, path }),
    fc.record({ type: fc.constant('section'), title: text }),
    fc.record({ type: fc.constant('divider') }),
    fc.record({ type: fc.constant('tag_container'), tags: list(fc.record({ text, color })) }),
    fc.record({ type: fc.constant('attention'), text, icon: text }, { requiredKeys: ['type', 'text'] }),
    fc.record({ type: fc.constant('instruction'), steps: list(text) }),
    fc.record({ type: fc.constant('text'), text }),
    fc.record({ type: fc.constant('highlight'), label: text, path }),
    fc.record({ type: fc.constant('highlight_grid'), items: list(fc.record({ label: text, path })) }),
  );
  const name = fc.option(fc.string({ maxLength: 255 }), { nil: null });
  const elements = (element: fc.Arbitrary<Record<string, unknown>>) => fc.array(element, { maxLength: 8 });
  return {
    card: fc.record({ name, card_layout: elements(cardElement), modal_layout: elements(cardElement) }),
    ticket: fc.record({ name, elements: elements(ticketElement) }),
  };
}
