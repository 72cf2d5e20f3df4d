import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { LayoutDefinition, LayoutElement } from '../../src/modules/layouts/layout-schema.js';
import { layoutLanguageOf, recordContext, renderLayout, resolvePath, textIn, ticketContext } from '../../src/modules/layouts/render.js';
import { CARD_KINDS, layoutBodies, TICKET_KINDS } from '../factories/layout-elements.js';

const ticketLayout = (...elements: Record<string, unknown>[]) => ({
  ref: 'pass',
  name: 'Gate ticket',
  definition: { elements: elements as LayoutElement[] },
});
/** The one element of a ticket layout, rendered against `data`. */
const renderOne = (element: Record<string, unknown>, data: Record<string, unknown>) =>
  renderLayout(ticketLayout(element), data).elements![0];

describe('resolvePath', () => {
  const data = {
    driver: { tax_id: '12345678900', name: null },
    custom_data: { container: { number: 'MSCU1234567', seals: ['S1', 'S2'] } },
    zero: 0,
    no: false,
    empty: '',
    text: 'abc',
  };

  it('follows each key of a dot path', () => {
    expect(resolvePath(data, 'driver.tax_id')).toBe('12345678900');
    expect(resolvePath(data, 'custom_data.container.number')).toBe('MSCU1234567');
    expect(resolvePath(data, 'custom_data.container')).toBe(data.custom_data.container);
  });

  it('indexes arrays by position', () => {
    expect(resolvePath(data, 'custom_data.container.seals.1')).toBe('S2');
    expect(resolvePath(data, 'custom_data.container.seals.2')).toBeNull();
    expect(resolvePath(data, 'custom_data.container.seals.-1')).toBeNull();
  });

  it('keeps falsy values, and answers null for null', () => {
    expect(resolvePath(data, 'zero')).toBe(0);
    expect(resolvePath(data, 'no')).toBe(false);
    expect(resolvePath(data, 'empty')).toBe('');
    expect(resolvePath(data, 'driver.name')).toBeNull();
  });

  it('answers null where the path ends: a missing key, a null or a primitive on the way, an undefined value', () => {
    expect(resolvePath(data, 'driver.license')).toBeNull();
    expect(resolvePath(data, 'trip.ref')).toBeNull();
    expect(resolvePath(data, 'driver.name.first')).toBeNull();
    expect(resolvePath(data, 'text.length')).toBeNull();
    expect(resolvePath(data, 'zero.toFixed')).toBeNull();
    expect(resolvePath({ a: undefined }, 'a')).toBeNull();
    for (const root of [null, undefined, 'text', 42, true]) expect(resolvePath(root, 'a')).toBeNull();
  });

  it('reads own properties only: nothing inherited from Object.prototype', () => {
    for (const path of ['constructor', 'toString', '__proto__', 'driver.hasOwnProperty', 'driver.constructor.name']) {
      expect([path, resolvePath(data, path)]).toEqual([path, null]);
    }
    // JSON.parse makes "__proto__" an own property, which is data like any other.
    expect(resolvePath(JSON.parse('{"__proto__": {"x": 1}}'), '__proto__.x')).toBe(1);
  });

  it('finds any JSON value placed at any dot path', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ minLength: 1, maxLength: 8 }).filter((key) => !key.includes('.')),
          { minLength: 1, maxLength: 6 },
        ),
        fc.jsonValue(),
        (keys, value) => {
          // Computed keys define own properties, `__proto__` included.
          const data = keys.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
          expect(resolvePath(data, keys.join('.'))).toEqual(value);
          expect(resolvePath(data, [...keys, 'missing'].join('.'))).toBeNull();
        },
      ),
    );
  });

  it('never throws on any data and any path', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (data, path) => {
        expect(resolvePath(data, path)).not.toBeUndefined();
      }),
    );
  });
});

describe('renderLayout', () => {
  it('answers layout_ref, name and each part of the layout, elements in order', () => {
    const cardElements = Object.values(CARD_KINDS);
    const card = renderLayout(
      { ref: 'pickup', name: null, definition: { card_layout: cardElements, modal_layout: [] } as unknown as LayoutDefinition },
      {},
    );
    expect(Object.keys(card)).toEqual(['layout_ref', 'name', 'card_layout', 'modal_layout']);
    expect(card).toMatchObject({ layout_ref: 'pickup', name: null, modal_layout: [] });
    expect(card.card_layout!.map((element) => element.type)).toEqual(cardElements.map((element) => element.type));

    const ticketElements = Object.values(TICKET_KINDS);
    const ticket = renderLayout(ticketLayout(...ticketElements), {});
    expect(Object.keys(ticket)).toEqual(['layout_ref', 'name', 'elements']);
    expect(ticket).toMatchObject({ layout_ref: 'pass', name: 'Gate ticket' });
    expect(ticket.elements!.map((element) => element.type)).toEqual(ticketElements.map((element) => element.type));
  });

  it('gives field and highlight the value at their path, null when the data has none', () => {
    for (const type of ['field', 'highlight']) {
      const element = { type, label: 'Gate', path: 'content.gate' };
      expect(renderOne(element, { content: { gate: 'A1' } })).toEqual({ ...element, value: 'A1' });
      expect(renderOne(element, { content: { gate: { lane: 3 } } })).toEqual({ ...element, value: { lane: 3 } });
      expect(renderOne(element, { content: { gate: 0 } })).toEqual({ ...element, value: 0 });
      expect(renderOne(element, { content: {} })).toEqual({ ...element, value: null });
      expect(renderOne(element, {})).toEqual({ ...element, value: null });
    }
  });

  it('gives a qrcode its value as text: a string as is, null as null, anything else as JSON', () => {
    const qrcode = { type: 'qrcode', path: 'appointment.id' };
    const values: [unknown, string | null][] = [
      ['APPT-1', 'APPT-1'],
      ['', ''],
      [42, '42'],
      [0, '0'],
      [true, 'true'],
      [{ a: 1, b: [2] }, '{"a":1,"b":[2]}'],
      [['x', 1], '["x",1]'],
      [null, null],
    ];
    for (const [value, text] of values) {
      const rendered = renderLayout(
        { ref: 'card', name: null, definition: { card_layout: [qrcode], modal_layout: [] } },
        {
          appointment: { id: value },
        },
      ).card_layout![0];
      expect([value, rendered]).toEqual([value, { ...qrcode, value: text }]);
    }
    expect(renderOne(qrcode, {})).toEqual({ ...qrcode, value: null });
  });

  it('gives each highlight_grid item its value, and the grid itself none', () => {
    const grid = {
      type: 'highlight_grid',
      items: [
        { label: 'Row', path: 'content.row' },
        { label: 'Tier', path: 'content.tier' },
      ],
    };
    const rendered = renderOne(grid, { content: { row: 4 } });
    expect(rendered).toEqual({
      type: 'highlight_grid',
      items: [
        { label: 'Row', path: 'content.row', value: 4 },
        { label: 'Tier', path: 'content.tier', value: null },
      ],
    });
  });

  it('copies the kinds without a path as they are, without a value', () => {
    const withoutPath = [...Object.values(CARD_KINDS), ...Object.values(TICKET_KINDS)].filter(
      (element) => !('path' in element) && element.type !== 'highlight_grid',
    );
    expect(withoutPath.map((element) => element.type).sort()).toEqual(
      ['alert', 'attention', 'divider', 'instruction', 'section', 'section', 'tag_container', 'text'].sort(),
    );
    for (const element of withoutPath) {
      const rendered = renderOne(element, { title: 'not this', text: 'nor this', content: { text: 'nor this' } });
      expect(rendered).toEqual(element);
      expect(rendered).not.toHaveProperty('value');
      expect(rendered).not.toBe(element);
    }
  });

  it('escapes nothing: texts and values reach the app exactly as configured and stored', () => {
    const markup = '<script>alert("x")</script> & \u00e9 \u{1F69A} \\ \n';
    const rendered = renderLayout(
      ticketLayout(
        { type: 'text', text: markup },
        { type: 'field', label: markup, path: 'content.note' },
        { type: 'qrcode', path: 'content.note' },
      ),
      { content: { note: markup } },
    ).elements!;
    expect(rendered[0]).toEqual({ type: 'text', text: markup });
    expect(rendered[1]).toEqual({ type: 'field', label: markup, path: 'content.note', value: markup });
    expect(rendered[2]).toEqual({ type: 'qrcode', path: 'content.note', value: markup });
  });

  it('changes neither the layout nor the data, and renders the same twice', () => {
    const layout = ticketLayout(...Object.values(TICKET_KINDS));
    const data = { content: { gate: 'A1', bay: 7, row: 2 } };
    const [layoutBefore, dataBefore] = [structuredClone(layout), structuredClone(data)];
    const first = renderLayout(layout, data);
    expect(renderLayout(layout, data)).toEqual(first);
    expect(layout).toEqual(layoutBefore);
    expect(data).toEqual(dataBefore);
    // The rendered grid items are copies too.
    first.elements!.find((element) => element.type === 'highlight_grid')!.items![0].label = 'changed';
    expect(layout).toEqual(layoutBefore);
  });
});

describe('renderLayout: texts in several languages', () => {
  const plate = { 'pt-BR': 'Placa', es: 'Placa de la unidad', en: 'Plate' };
  const translatedTicket = ticketLayout(
    { type: 'field', label: plate, path: 'content.plate' },
    { type: 'section', title: { es: 'Pase', 'pt-BR': 'Passe' } },
    { type: 'tag_container', tags: [{ text: { en: 'Reefer', 'pt-BR': 'Refrigerado' }, color: 'blue' }] },
    { type: 'attention', text: { 'pt-BR': 'Pare na balança', en: 'Stop at the scale' }, icon: 'scale' },
    { type: 'instruction', steps: ['Lane 3', { es: 'Espere la luz', 'pt-BR': 'Espere o sinal' }] },
    { type: 'text', text: 'As written' },
    { type: 'highlight_grid', items: [{ label: { es: 'Fila', en: 'Row' }, path: 'content.row' }] },
  );
  const data = { content: { plate: 'ABC1D23', row: 4 } };

  it('draws each text in the language asked', () => {
    expect(renderLayout(translatedTicket, data, 'pt-BR').elements).toEqual([
      { type: 'field', label: 'Placa', path: 'content.plate', value: 'ABC1D23' },
      { type: 'section', title: 'Passe' },
      { type: 'tag_container', tags: [{ text: 'Refrigerado', color: 'blue' }] },
      { type: 'attention', text: 'Pare na balança', icon: 'scale' },
      { type: 'instruction', steps: ['Lane 3', 'Espere o sinal'] },
      { type: 'text', text: 'As written' },
      { type: 'highlight_grid', items: [{ label: 'Row', path: 'content.row', value: 4 }] },
    ]);
    expect(renderLayout(translatedTicket, data, 'es').elements!.map((element) => element.label ?? element.title ?? element.steps)).toEqual([
      'Placa de la unidad',
      'Pase',
      undefined,
      undefined,
      ['Lane 3', 'Espere la luz'],
      undefined,
      undefined,
    ]);
  });

  it('falls back to English, then to pt-BR, then to es, when the text lacks the language or none is asked', () => {
    for (const language of [null, 'en'] as const) {
      const elements = renderLayout(translatedTicket, data, language).elements!;
      expect(elements[0].label).toBe('Plate');
      expect(elements[1].title).toBe('Passe');
      expect(elements[4].steps).toEqual(['Lane 3', 'Espere o sinal']);
    }
    expect(textIn({ es: 'Solo español' }, 'pt-BR')).toBe('Solo español');
    expect(renderLayout(translatedTicket, data, 'es').elements![3].text).toBe('Stop at the scale');
  });

  it('leaves the layout as saved', () => {
    const before = structuredClone(translatedTicket);
    renderLayout(translatedTicket, data, 'es');
    expect(translatedTicket).toEqual(before);
  });

  it('draws a text as a string in any language, and each of the three languages from an object that has it', () => {
    fc.assert(
      fc.property(
        fc.record(
          { 'pt-BR': fc.string({ minLength: 1 }), es: fc.string({ minLength: 1 }), en: fc.string({ minLength: 1 }) },
          { requiredKeys: [] },
        ),
        fc.constantFrom('pt-BR', 'es', 'en', null),
        (texts, language) => {
          fc.pre(Object.keys(texts).length > 0);
          const drawn = textIn(texts, language);
          const expected = (language && texts[language]) || texts.en || texts['pt-BR'] || texts.es;
          expect(drawn).toBe(expected);
          expect(textIn('as is', language)).toBe('as is');
        },
      ),
    );
  });
});

describe('the layout language of a request (Accept-Language)', () => {
  it.each([
    [undefined, null],
    ['', null],
    ['pt-BR', 'pt-BR'],
    ['pt-br', 'pt-BR'],
    ['pt', 'pt-BR'],
    ['pt-PT', 'pt-BR'],
    ['es-MX,es;q=0.9', 'es'],
    ['es-419', 'es'],
    ['en-GB,en;q=0.8', 'en'],
    ['fr-FR,fr;q=0.9,es;q=0.5,en;q=0.4', 'es'],
    ['en;q=0.5, pt-BR;q=0.9', 'pt-BR'],
    ['de, *;q=0.1', null],
    ['es;q=0, en', 'en'],
    ['es;q=abc, pt;q=0.2', 'pt-BR'],
    ['fr, de', null],
    [['es', 'en'], 'es'],
  ] as const)('%j → %s', (header, language) => {
    expect(layoutLanguageOf(header as string | string[] | undefined)).toBe(language);
  });

  it('takes the earlier of two ranges of the same weight', () => {
    expect(layoutLanguageOf('es, pt-BR')).toBe('es');
    expect(layoutLanguageOf('pt-BR, es')).toBe('pt-BR');
  });
});

describe('rendering contexts', () => {
  const driver = { tax_id: '12345678900', driver_license_number: 'LIC-1' };
  const appointment = { id: 'a-1', ref: 'APPT-1', license_plate: 'ABC1D23', custom_data: { container: { number: 'MSCU1234567' } } };

  it('lets a record path reach its fields at the top level and under its noun, driver.* and custom_data.*', () => {
    const context = recordContext('appointment', appointment, driver);
    expect(resolvePath(context, 'license_plate')).toBe('ABC1D23');
    expect(resolvePath(context, 'appointment.license_plate')).toBe('ABC1D23');
    expect(resolvePath(context, 'driver.tax_id')).toBe('12345678900');
    expect(resolvePath(context, 'custom_data.container.number')).toBe('MSCU1234567');
    expect(resolvePath(context, 'trip.license_plate')).toBeNull();
    expect(resolvePath(recordContext('trip', appointment, driver), 'trip.ref')).toBe('APPT-1');
    expect(recordContext('trip', { ref: 'T-1' }, driver).custom_data).toBeNull();
  });

  it('lets a ticket path reach content.*, the ticket, its appointment, driver and the appointment’s custom_data', () => {
    const ticket = { id: 't-1', layout_ref: 'pass', content: { gate: 'A1' } };
    const context = ticketContext(ticket, appointment, driver);
    expect(resolvePath(context, 'content.gate')).toBe('A1');
    expect(resolvePath(context, 'ticket.id')).toBe('t-1');
    expect(resolvePath(context, 'layout_ref')).toBe('pass');
    expect(resolvePath(context, 'appointment.ref')).toBe('APPT-1');
    expect(resolvePath(context, 'driver.tax_id')).toBe('12345678900');
    expect(resolvePath(context, 'custom_data.container.number')).toBe('MSCU1234567');
  });

  it('answers null for the parts a ticket has not got', () => {
    const context = ticketContext({ id: 't-1' }, null, null);
    for (const path of ['content', 'content.gate', 'appointment', 'appointment.ref', 'driver.tax_id', 'custom_data', 'custom_data.x']) {
      expect([path, resolvePath(context, path)]).toEqual([path, null]);
    }
  });
});

/** Paths and data drawn from the same few keys, so that paths often reach a value and often end early. */
const KEYS = ['a', 'b', 'content', '0'];
const nearPath = fc.array(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 4 }).map((keys) => keys.join('.'));
const { tree } = fc.letrec<{ tree: unknown }>((self) => ({
  tree: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 0 }),
    fc.array(self('tree'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...KEYS), self('tree'), { maxKeys: 4 }),
  ),
}));
const near = layoutBodies(nearPath);
/** Data as the app renders against (a parsed JSON object), now and then any JSON value at all. */
const anyData = fc
  .oneof({ arbitrary: fc.dictionary(fc.constantFrom(...KEYS), tree, { minKeys: 1 }), weight: 4 }, { arbitrary: fc.jsonValue(), weight: 1 })
  .map((value) => JSON.parse(JSON.stringify(value)) as unknown);

describe('renderLayout: properties', () => {
  it('never throws on any JSON data, answers JSON, keeps every element as configured and resolves each path', () => {
    let reached = 0;
    fc.assert(
      fc.property(fc.oneof(near.card, near.ticket), anyData, (body, data) => {
        const { name, ...definition } = body;
        const layout = { ref: 'generated', name, definition: definition as LayoutDefinition };
        const before = structuredClone(layout);
        const rendered = renderLayout(layout, data as Record<string, unknown>);
        expect(JSON.parse(JSON.stringify(rendered))).toEqual(rendered);
        expect(layout).toEqual(before);
        expect(rendered).toMatchObject({ layout_ref: 'generated', name });
        for (const [part, elements] of Object.entries(definition) as [string, LayoutElement[]][]) {
          const out = rendered[part as keyof typeof rendered] as Record<string, unknown>[];
          expect(out).toHaveLength(elements.length);
          elements.forEach((element, i) => {
            const { value, items, ...configured } = out[i];
            const atPath = typeof element.path === 'string' ? resolvePath(data, element.path) : undefined;
            if (atPath !== undefined && atPath !== null) reached++;
            if (element.type === 'highlight_grid') {
              expect({ ...configured, items }).toMatchObject(element);
              expect(value).toBeUndefined();
              const paths = (element.items as { path: string }[]).map((item) => item.path);
              expect((items as { value: unknown }[]).map((item) => item.value)).toEqual(paths.map((at) => resolvePath(data, at)));
            } else if (element.type === 'qrcode') {
              expect(configured).toEqual(element);
              if (typeof atPath === 'string' || atPath === null) expect(value).toBe(atPath);
              else expect(JSON.parse(value as string)).toEqual(atPath);
            } else {
              expect(configured).toEqual(element);
              expect(value).toEqual(atPath);
            }
          });
        }
      }),
      { numRuns: 200 },
    );
    // The paths reached a value often enough for the checks above to mean something.
    expect(reached).toBeGreaterThan(10);
  });
});
