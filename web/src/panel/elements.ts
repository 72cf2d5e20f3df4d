/** What the layout editor knows of each element kind: the fields it edits and a new element's starting values. */
export type FieldKind = 'text' | 'optional-text' | 'path' | 'color' | 'steps' | 'tags' | 'items';

export interface KindSpec {
  label: string;
  fields: [name: string, label: string, kind: FieldKind][];
  create(set: LayoutSet): Record<string, unknown>;
}

export type LayoutSet = 'trip' | 'appointment' | 'ticket';

export const ALERT_COLORS = ['purple', 'blue', 'green', 'yellow', 'red', 'gray'] as const;

const samplePath = (set: LayoutSet) => (set === 'ticket' ? 'content.gate' : 'ref');

const section: KindSpec = { label: 'Section title', fields: [['title', 'Title', 'text']], create: () => ({ title: 'New section' }) };
const field: KindSpec = {
  label: 'Field',
  fields: [
    ['label', 'Label', 'text'],
    ['path', 'Path', 'path'],
  ],
  create: (set) => ({ label: 'Label', path: samplePath(set) }),
};

/** Card and detail-modal elements (trip and appointment layouts). */
export const CARD_KINDS: Record<string, KindSpec> = {
  section,
  field,
  alert: {
    label: 'Alert',
    fields: [
      ['color', 'Colour', 'color'],
      ['text', 'Text', 'text'],
      ['icon', 'Icon (optional)', 'optional-text'],
    ],
    create: () => ({ color: 'yellow', text: 'Note', icon: 'warning' }),
  },
  qrcode: { label: 'QR code', fields: [['path', 'Path', 'path']], create: () => ({ path: 'ref' }) },
};

/** Ticket elements. */
export const TICKET_KINDS: Record<string, KindSpec> = {
  field,
  section,
  divider: { label: 'Divider', fields: [], create: () => ({}) },
  tag_container: { label: 'Tags', fields: [['tags', 'Tags', 'tags']], create: () => ({ tags: [{ text: 'Tag', color: 'blue' }] }) },
  attention: {
    label: 'Attention',
    fields: [
      ['text', 'Text', 'text'],
      ['icon', 'Icon (optional)', 'optional-text'],
    ],
    create: () => ({ text: 'Attention', icon: 'alert' }),
  },
  instruction: { label: 'Instructions', fields: [['steps', 'Steps', 'steps']], create: () => ({ steps: ['First step'] }) },
  text: { label: 'Text', fields: [['text', 'Text', 'text']], create: () => ({ text: 'Text' }) },
  highlight: {
    label: 'Highlight',
    fields: [
      ['label', 'Label', 'text'],
      ['path', 'Path', 'path'],
    ],
    create: () => ({ label: 'Gate', path: 'content.gate' }),
  },
  highlight_grid: {
    label: 'Highlight grid',
    fields: [['items', 'Items', 'items']],
    create: () => ({ items: [{ label: 'Lane', path: 'content.lane' }] }),
  },
};

export const kindsOf = (set: LayoutSet) => (set === 'ticket' ? TICKET_KINDS : CARD_KINDS);
export const partsOf = (set: LayoutSet): [part: string, label: string][] =>
  set === 'ticket'
    ? [['elements', 'Ticket']]
    : [
        ['card_layout', 'Card'],
        ['modal_layout', 'Detail modal'],
      ];
