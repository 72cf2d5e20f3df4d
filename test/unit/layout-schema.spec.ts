import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  ALERT_COLORS,
  CARD_ELEMENT_TYPES,
  LAYOUT_SETS,
  type LayoutSet,
  parseLayoutBody,
  TICKET_ELEMENT_TYPES,
  WORDS_MESSAGE,
} from '../../src/modules/layouts/layout-schema.js';
import { CARD_KINDS, layoutBodies, TICKET_KINDS } from '../factories/layout-elements.js';

type Element = Record<string, unknown>;
type Issue = { path: string; message: string };

const CARD_SETS = ['trip', 'appointment'] as const;

const card = (...elements: unknown[]) => ({ card_layout: elements, modal_layout: [] });
const ticket = (...elements: unknown[]) => ({ elements });
const issuesOf = (set: LayoutSet, body: unknown): Issue[] => parseLayoutBody(set, body).issues;
const ticketIssues = (...elements: unknown[]) => issuesOf('ticket', ticket(...elements));
const cardIssues = (...elements: unknown[]) => issuesOf('appointment', card(...elements));

const TICKET_TYPES_MESSAGE = `must be one of ${TICKET_ELEMENT_TYPES.join(', ')}`;
const CARD_TYPES_MESSAGE = `must be one of ${CARD_ELEMENT_TYPES.join(', ')}`;
const PATH_MESSAGE = 'must be a dot path such as driver.tax_id or custom_data.container.number';

describe('layout sets', () => {
  it('has a valid example for every element kind of each set, and nothing else', () => {
    expect(Object.keys(CARD_KINDS).sort()).toEqual([...CARD_ELEMENT_TYPES].sort());
    expect(Object.keys(TICKET_KINDS).sort()).toEqual([...TICKET_ELEMENT_TYPES].sort());
  });

  it('takes card_layout and modal_layout for trips and appointments, elements for tickets', () => {
    for (const set of LAYOUT_SETS) {
      const body = set === 'ticket' ? ticket() : card();
      expect(parseLayoutBody(set, body)).toEqual({ value: { name: null, definition: body }, issues: [] });
    }
  });
});

describe('parseLayoutBody: valid layouts', () => {
  it.each(CARD_SETS)('accepts every card kind in card_layout and modal_layout of %s layouts, and answers them as sent', (set) => {
    const elements = Object.values(CARD_KINDS);
    const body = { name: 'Pickup', card_layout: elements, modal_layout: [...elements].reverse() };
    expect(parseLayoutBody(set, structuredClone(body))).toEqual({
      value: { name: 'Pickup', definition: { card_layout: body.card_layout, modal_layout: body.modal_layout } },
      issues: [],
    });
  });

  it('accepts every ticket kind, and answers them as sent', () => {
    const body = { name: 'Gate ticket', elements: Object.values(TICKET_KINDS) };
    expect(parseLayoutBody('ticket', structuredClone(body))).toEqual({
      value: { name: 'Gate ticket', definition: { elements: body.elements } },
      issues: [],
    });
  });

  it('accepts every alert colour, for card alerts and ticket tags', () => {
    for (const color of ALERT_COLORS) {
      expect(cardIssues({ type: 'alert', color, text: 'x' })).toEqual([]);
      expect(ticketIssues({ type: 'tag_container', tags: [{ text: 'x', color }] })).toEqual([]);
    }
  });

  it('takes icon as optional on alert and attention', () => {
    expect(cardIssues({ type: 'alert', color: 'red', text: 'x' })).toEqual([]);
    expect(ticketIssues({ type: 'attention', text: 'x' })).toEqual([]);
  });

  it('answers name null when it is left out or null, and a name of up to 255 characters as is', () => {
    expect(parseLayoutBody('ticket', ticket()).value!.name).toBeNull();
    expect(parseLayoutBody('ticket', { name: null, elements: [] }).value!.name).toBeNull();
    expect(parseLayoutBody('ticket', { name: 'n'.repeat(255), elements: [] }).value!.name).toBe('n'.repeat(255));
    expect(parseLayoutBody('ticket', { name: '', elements: [] }).value!.name).toBe('');
  });

  it('takes paths of letters, digits, _ and -, starting with a letter or _', () => {
    for (const path of [
      'a',
      '_x',
      'driver.tax_id',
      'custom_data.container.number',
      'content.0',
      'a-b.c-d',
      'A.B9',
      'x.' + 'y'.repeat(253),
    ]) {
      expect([path, cardIssues({ type: 'qrcode', path })]).toEqual([path, []]);
    }
  });

  it('takes texts of up to 2000 characters, list of up to 100 entries, up to 200 elements per part', () => {
    expect(ticketIssues({ type: 'text', text: 't'.repeat(2000) })).toEqual([]);
    expect(ticketIssues({ type: 'instruction', steps: Array(100).fill('step') })).toEqual([]);
    expect(ticketIssues({ type: 'tag_container', tags: Array(100).fill({ text: 'x', color: 'red' }) })).toEqual([]);
    expect(ticketIssues({ type: 'highlight_grid', items: Array(100).fill({ label: 'x', path: 'a' }) })).toEqual([]);
    expect(issuesOf('ticket', { elements: Array(200).fill({ type: 'divider' }) })).toEqual([]);
    const many = Array(200).fill(CARD_KINDS.section);
    expect(issuesOf('trip', { card_layout: many, modal_layout: many })).toEqual([]);
  });
});

describe('parseLayoutBody: the body', () => {
  it.each([null, [], 'text', 42, true])('refuses %j as a body, located at the root', (body) => {
    for (const set of LAYOUT_SETS)
      expect(parseLayoutBody(set, body)).toEqual({ issues: [{ path: '', message: 'the body must be a JSON object' }] });
  });

  it('names the parts of the other kind of set as unknown properties', () => {
    expect(issuesOf('ticket', { elements: [], card_layout: [], modal_layout: [] })).toEqual([
      { path: 'card_layout', message: 'is not a known property' },
      { path: 'modal_layout', message: 'is not a known property' },
    ]);
    for (const set of CARD_SETS) {
      expect(issuesOf(set, { ...card(), elements: [] })).toEqual([{ path: 'elements', message: 'is not a known property' }]);
    }
  });

  it('requires every part of the set to be an array', () => {
    expect(issuesOf('ticket', {})).toEqual([{ path: 'elements', message: 'must be an array of elements' }]);
    expect(issuesOf('appointment', { card_layout: [] })).toEqual([{ path: 'modal_layout', message: 'must be an array of elements' }]);
    expect(issuesOf('trip', { card_layout: {}, modal_layout: 'x' })).toEqual([
      { path: 'card_layout', message: 'must be an array of elements' },
      { path: 'modal_layout', message: 'must be an array of elements' },
    ]);
    expect(issuesOf('ticket', { elements: null })).toEqual([{ path: 'elements', message: 'must be an array of elements' }]);
  });

  it('refuses a name that is not a string of at most 255 characters', () => {
    for (const name of ['n'.repeat(256), 42, {}, [], false]) {
      expect(issuesOf('ticket', { name, elements: [] })).toEqual([{ path: 'name', message: 'must be a string of at most 255 characters' }]);
    }
  });

  it('refuses more than 200 elements in a part with one issue on the part', () => {
    expect(issuesOf('ticket', { elements: Array(201).fill({ type: 'divider' }) })).toEqual([
      { path: 'elements', message: 'must have at most 200 elements' },
    ]);
    // The elements of an oversized part are not looked at.
    expect(issuesOf('trip', { card_layout: [], modal_layout: Array(201).fill({ type: 'nope' }) })).toEqual([
      { path: 'modal_layout', message: 'must have at most 200 elements' },
    ]);
  });

  it('reports unknown properties, then the name, then each part in order', () => {
    expect(issuesOf('appointment', { extra: 1, name: 7, card_layout: [{ type: 'nope' }], modal_layout: [{ type: 'section' }] })).toEqual([
      { path: 'extra', message: 'is not a known property' },
      { path: 'name', message: 'must be a string of at most 255 characters' },
      { path: 'card_layout[0].type', message: CARD_TYPES_MESSAGE },
      { path: 'modal_layout[0].title', message: 'is required' },
    ]);
  });
});

describe('parseLayoutBody: elements', () => {
  it.each([null, 'text', 42, [], [CARD_KINDS.section]])('refuses %j as an element', (element) => {
    expect(cardIssues(CARD_KINDS.section, element)).toEqual([{ path: 'card_layout[1]', message: 'must be an object with a type' }]);
    expect(ticketIssues(element)).toEqual([{ path: 'elements[0]', message: 'must be an object with a type' }]);
  });

  it('refuses an element without a known type, naming the kinds of the set, and looks no further', () => {
    for (const type of [undefined, null, 42, '', 'banner', 'Field', 'toString', '__proto__']) {
      expect(cardIssues({ type, title: 42 })).toEqual([{ path: 'card_layout[0].type', message: CARD_TYPES_MESSAGE }]);
      expect(ticketIssues({ type, title: 42 })).toEqual([{ path: 'elements[0].type', message: TICKET_TYPES_MESSAGE }]);
    }
  });

  it('refuses the kinds of the other set', () => {
    for (const type of TICKET_ELEMENT_TYPES.filter((kind) => !CARD_ELEMENT_TYPES.includes(kind))) {
      expect(cardIssues(TICKET_KINDS[type])).toEqual([{ path: 'card_layout[0].type', message: CARD_TYPES_MESSAGE }]);
    }
    for (const type of CARD_ELEMENT_TYPES.filter((kind) => !TICKET_ELEMENT_TYPES.includes(kind))) {
      expect(ticketIssues(CARD_KINDS[type])).toEqual([{ path: 'elements[0].type', message: TICKET_TYPES_MESSAGE }]);
    }
  });

  it('requires every field but the optional icon, for each kind of each set', () => {
    const check = (kinds: Record<string, Element>, issuesFor: (element: Element) => Issue[], part: string) => {
      for (const [type, valid] of Object.entries(kinds)) {
        for (const field of Object.keys(valid).filter((key) => key !== 'type')) {
          const { [field]: _dropped, ...without } = valid;
          const expected = field === 'icon' ? [] : [{ path: `${part}.${field}`, message: 'is required' }];
          expect([type, field, issuesFor(without)]).toEqual([type, field, expected]);
        }
      }
    };
    check(CARD_KINDS, (element) => cardIssues(element), 'card_layout[0]');
    check(TICKET_KINDS, (element) => ticketIssues(element), 'elements[0]');
  });

  it('names each unknown property of an element, then checks the known ones', () => {
    for (const [type, valid] of Object.entries(TICKET_KINDS)) {
      expect([type, ticketIssues({ ...valid, size: 3, value: 'x' })]).toEqual([
        type,
        [
          { path: 'elements[0].size', message: 'is not a known property' },
          { path: 'elements[0].value', message: 'is not a known property' },
        ],
      ]);
    }
    expect(cardIssues({ type: 'field', extra: true, label: '', path: 'a' })).toEqual([
      { path: 'card_layout[0].extra', message: 'is not a known property' },
      { path: 'card_layout[0].label', message: 'must be a non-empty string' },
    ]);
    // A ticket kind's fields are not a card kind's, even for a kind both sets have.
    expect(cardIssues({ ...CARD_KINDS.section, steps: ['x'] })).toEqual([
      { path: 'card_layout[0].steps', message: 'is not a known property' },
    ]);
  });

  it('requires texts to be non-empty strings of at most 2000 characters', () => {
    const texts: [unknown, string | null][] = [
      ['', 'must be a non-empty string'],
      ['   \n\t', 'must be a non-empty string'],
      [42, 'must be a non-empty string'],
      [null, 'must be a non-empty string'],
      [['x'], 'must be a non-empty string'],
      ['t'.repeat(2001), 'must be at most 2000 characters'],
      [' x ', null],
    ];
    for (const [text, message] of texts) {
      const expected = (path: string) => (message ? [{ path, message }] : []);
      // Texts drivers read may also be an object of languages: a value that is neither says both forms.
      const words = (path: string) =>
        expected(path).map((issue) => (typeof text === 'string' ? issue : { ...issue, message: WORDS_MESSAGE }));
      expect(ticketIssues({ type: 'text', text })).toEqual(words('elements[0].text'));
      expect(ticketIssues({ type: 'section', title: text })).toEqual(words('elements[0].title'));
      expect(ticketIssues({ type: 'attention', text: 'x', icon: text })).toEqual(expected('elements[0].icon'));
      expect(cardIssues({ type: 'alert', color: 'red', text: 'x', icon: text })).toEqual(expected('card_layout[0].icon'));
      expect(cardIssues({ type: 'field', label: text, path: 'a' })).toEqual(words('card_layout[0].label'));
    }
  });

  it('takes every text drivers read as a string or as {"pt-BR", "es", "en"} (at least one, only those), and no other field so', () => {
    const texts = { 'pt-BR': 'Placa', es: 'Placa', en: 'Plate' };
    const layout = {
      elements: [
        { type: 'field', label: texts, path: 'appointment.license_plate' },
        { type: 'section', title: { es: 'Pase' } },
        { type: 'tag_container', tags: [{ text: { en: 'Reefer', 'pt-BR': 'Reefer' }, color: 'blue' }] },
        { type: 'attention', text: { 'pt-BR': 'Pare na balança' }, icon: 'alert' },
        { type: 'instruction', steps: ['Go to lane 3', { es: 'Espere la luz', en: 'Wait for the light' }] },
        { type: 'text', text: { en: 'Have a good trip' } },
        { type: 'highlight', label: { 'pt-BR': 'Portão' }, path: 'content.gate' },
        { type: 'highlight_grid', items: [{ label: { es: 'Fila' }, path: 'content.row' }] },
      ],
    };
    expect(parseLayoutBody('ticket', structuredClone(layout))).toEqual({ value: { name: null, definition: layout }, issues: [] });
    const card = {
      card_layout: [
        { type: 'section', title: texts },
        { type: 'alert', color: 'red', text: texts },
      ],
      modal_layout: [],
    };
    expect(parseLayoutBody('appointment', card).issues).toEqual([]);
    // icon, color and path are not texts: always strings.
    expect(ticketIssues({ type: 'attention', text: 'x', icon: { en: 'alert' } })).toEqual([
      { path: 'elements[0].icon', message: 'must be a non-empty string' },
    ]);
  });

  it('names what is wrong in a text of several languages, at the language', () => {
    expect(cardIssues({ type: 'field', label: {}, path: 'a' })).toEqual([
      { path: 'card_layout[0].label', message: 'must give the text in at least one of pt-BR, es, en' },
    ]);
    expect(cardIssues({ type: 'field', label: { fr: 'Plaque', 'pt-br': 'Placa', en: 'Plate' }, path: 'a' })).toEqual([
      { path: 'card_layout[0].label.fr', message: 'is not a language of layout texts: use pt-BR, es, en, written so' },
      { path: 'card_layout[0].label.pt-br', message: 'is not a language of layout texts: use pt-BR, es, en, written so' },
    ]);
    expect(ticketIssues({ type: 'instruction', steps: [{ es: '', en: 'x'.repeat(2001) }, { 'pt-BR': 7 }] })).toEqual([
      { path: 'elements[0].steps[0].es', message: 'must be a non-empty string' },
      { path: 'elements[0].steps[0].en', message: 'must be at most 2000 characters' },
      { path: 'elements[0].steps[1].pt-BR', message: 'must be a non-empty string' },
    ]);
    expect(ticketIssues({ type: 'tag_container', tags: [{ text: [], color: 'blue' }] })).toEqual([
      { path: 'elements[0].tags[0].text', message: WORDS_MESSAGE },
    ]);
  });

  it('requires paths to be dot paths of at most 255 characters', () => {
    const invalid = ['', '.a', 'a.', 'a..b', '1a', '-a', 'a b', 'a.b!', 'a/b', 'a[0]', 'ä', 'x.' + 'y'.repeat(254), 42, null, ['a']];
    for (const path of invalid) {
      expect([path, cardIssues({ type: 'qrcode', path })]).toEqual([path, [{ path: 'card_layout[0].path', message: PATH_MESSAGE }]]);
      expect([path, ticketIssues({ type: 'highlight', label: 'x', path })]).toEqual([
        path,
        [{ path: 'elements[0].path', message: PATH_MESSAGE }],
      ]);
    }
  });

  it('requires colours to be one of the alert colours, as written', () => {
    const message = `must be one of ${ALERT_COLORS.join(', ')}`;
    for (const color of ['pink', 'Blue', 'RED', '', 1, null]) {
      expect(cardIssues({ type: 'alert', color, text: 'x' })).toEqual([{ path: 'card_layout[0].color', message }]);
      expect(ticketIssues({ type: 'tag_container', tags: [{ text: 'x', color }] })).toEqual([
        { path: 'elements[0].tags[0].color', message },
      ]);
    }
  });

  it('requires steps, tags and items to be lists of 1 to 100 entries, locating each bad entry', () => {
    for (const [type, field, entry] of [
      ['instruction', 'steps', 'step'],
      ['tag_container', 'tags', { text: 'x', color: 'red' }],
      ['highlight_grid', 'items', { label: 'x', path: 'a' }],
    ] as const) {
      const at = `elements[0].${field}`;
      expect(ticketIssues({ type, [field]: [] })).toEqual([{ path: at, message: 'must be a non-empty array' }]);
      expect(ticketIssues({ type, [field]: entry })).toEqual([{ path: at, message: 'must be a non-empty array' }]);
      expect(ticketIssues({ type, [field]: Array(101).fill(entry) })).toEqual([{ path: at, message: 'must have at most 100 entries' }]);
    }
    expect(ticketIssues({ type: 'instruction', steps: ['ok', '', 3] })).toEqual([
      { path: 'elements[0].steps[1]', message: 'must be a non-empty string' },
      { path: 'elements[0].steps[2]', message: WORDS_MESSAGE },
    ]);
  });

  it('checks each tag as {text, color} and each grid item as {label, path}', () => {
    expect(ticketIssues({ type: 'tag_container', tags: [{ text: 'ok', color: 'red' }, 'x', { color: 'red', size: 1 }] })).toEqual([
      { path: 'elements[0].tags[1]', message: 'must be an object' },
      { path: 'elements[0].tags[2].size', message: 'is not a known property' },
      { path: 'elements[0].tags[2].text', message: 'is required' },
    ]);
    expect(
      ticketIssues({
        type: 'highlight_grid',
        items: [[], { label: 'x', path: 'a b' }, { path: 'a' }, { label: 'y', path: 'b', icon: 'i' }],
      }),
    ).toEqual([
      { path: 'elements[0].items[0]', message: 'must be an object' },
      { path: 'elements[0].items[1].path', message: PATH_MESSAGE },
      { path: 'elements[0].items[2].label', message: 'is required' },
      { path: 'elements[0].items[3].icon', message: 'is not a known property' },
    ]);
  });

  it('reports every issue of every element, in order', () => {
    expect(ticketIssues(TICKET_KINDS.text, { type: 'text' }, TICKET_KINDS.divider, { type: 'highlight', label: '', path: '' })).toEqual([
      { path: 'elements[1].text', message: 'is required' },
      { path: 'elements[3].label', message: 'must be a non-empty string' },
      { path: 'elements[3].path', message: PATH_MESSAGE },
    ]);
  });
});

const validBody = layoutBodies();

/** A property no element kind knows, names that Object.prototype has (constructor, toString, …) included. */
const KNOWN_FIELDS = new Set([...Object.values(CARD_KINDS), ...Object.values(TICKET_KINDS)].flatMap((element) => Object.keys(element)));
const unknownKey = fc
  .oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom('constructor', 'toString', 'valueOf', 'hasOwnProperty'))
  .filter((key) => key !== '__proto__' && !KNOWN_FIELDS.has(key));

describe('parseLayoutBody: properties', () => {
  it('accepts any layout built from the element rules, answering its parts as sent', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CARD_SETS), validBody.card, (set, body) => {
        const { name: bodyName, ...definition } = body;
        expect(parseLayoutBody(set, structuredClone(body))).toEqual({ value: { name: bodyName, definition }, issues: [] });
      }),
    );
    fc.assert(
      fc.property(validBody.ticket, (body) => {
        expect(parseLayoutBody('ticket', structuredClone(body))).toEqual({
          value: { name: body.name, definition: { elements: body.elements } },
          issues: [],
        });
      }),
    );
  });

  it('never throws, and answers either a value or issues, each located under a property of the body', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...LAYOUT_SETS),
        fc.oneof(fc.jsonValue(), fc.dictionary(fc.constantFrom('name', 'elements', 'card_layout', 'modal_layout', 'x'), fc.jsonValue())),
        (set, body) => {
          const result = parseLayoutBody(set, body);
          expect(result.value === undefined).toBe(result.issues.length > 0);
          const roots = body !== null && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : [];
          const parts = set === 'ticket' ? ['elements'] : ['card_layout', 'modal_layout'];
          for (const { path: at } of result.issues) {
            const located = at === '' || roots.includes(at) || parts.some((part) => at === part || at.startsWith(`${part}[`));
            expect([at, located]).toEqual([at, true]);
          }
        },
      ),
    );
  });

  it('locates an unknown property added to any element of a valid ticket layout', () => {
    fc.assert(
      fc.property(
        validBody.ticket.filter((body) => body.elements.length > 0),
        fc.nat(),
        unknownKey,
        (body, at, key) => {
          const index = at % body.elements.length;
          const elements: Element[] = structuredClone(body.elements);
          elements[index][key] = 1;
          expect(parseLayoutBody('ticket', { ...body, elements }).issues).toEqual([
            { path: `elements[${index}].${key}`, message: 'is not a known property' },
          ]);
        },
      ),
    );
  });
});
