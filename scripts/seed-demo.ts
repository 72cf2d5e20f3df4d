import 'reflect-metadata';
import { loadConfig } from '../src/config/config.js';
import { openDatabase } from '../src/database/data-source.js';
import { AccountsRepository } from '../src/modules/accounts/accounts.repository.js';
import { AccountsService } from '../src/modules/accounts/accounts.service.js';
import { type LayoutSet, parseLayoutBody } from '../src/modules/layouts/layout-schema.js';
import { LayoutsRepository } from '../src/modules/layouts/layouts.repository.js';

/**
 * `npm run seed:demo`: a demo terminal and carrier with a layout of every set, and a fresh key for each,
 * printed for Swagger UI's Authorize button. Safe to run again: it reuses the demo accounts and issues new keys.
 */
const DEMO_TERMINAL = 'Demo Terminal';
const DEMO_CARRIER = 'Demo Carrier';

const CARD = {
  name: 'Demo card',
  card_layout: [
    { type: 'section', title: 'Appointment' },
    { type: 'field', label: 'Plate', path: 'license_plate' },
    { type: 'field', label: 'Container', path: 'custom_data.container.number' },
    { type: 'alert', color: 'blue', text: 'Arrive inside your window', icon: 'clock' },
  ],
  modal_layout: [
    { type: 'section', title: 'Driver' },
    { type: 'field', label: 'Tax id', path: 'driver.tax_id' },
    { type: 'field', label: 'Licence', path: 'driver.driver_license_number' },
    { type: 'qrcode', path: 'ref' },
  ],
};

const TICKET = {
  name: 'Demo gate ticket',
  elements: [
    { type: 'section', title: 'Gate pass' },
    { type: 'highlight', label: 'Gate', path: 'content.gate' },
    {
      type: 'highlight_grid',
      items: [
        { label: 'Lane', path: 'content.lane' },
        { label: 'Bay', path: 'content.bay' },
      ],
    },
    { type: 'divider' },
    { type: 'tag_container', tags: [{ text: 'Import', color: 'green' }] },
    { type: 'attention', text: 'Stop at the scale first', icon: 'warning' },
    { type: 'instruction', steps: ['Show this ticket at the gate', 'Follow the signs to your bay'] },
    { type: 'text', text: 'Valid for this visit only.' },
  ],
};

const LAYOUTS: [LayoutSet, string, object][] = [
  ['appointment', 'demo-appointment', CARD],
  ['ticket', 'demo-ticket', TICKET],
  [
    'trip',
    'demo-trip',
    {
      ...CARD,
      card_layout: [
        { type: 'section', title: 'Trip' },
        { type: 'field', label: 'To', path: 'to_location' },
      ],
    },
  ],
];

const database = await openDatabase(loadConfig());
try {
  await database.dataSource.initialize();
  await database.dataSource.runMigrations({ transaction: 'each' });
  const repository = new AccountsRepository(database.dataSource);
  const accounts = new AccountsService(repository);
  const layouts = new LayoutsRepository(database.dataSource);

  const keys: Record<string, { id: string; key: string }> = {};
  for (const [kind, name] of [
    ['terminal', DEMO_TERMINAL],
    ['carrier', DEMO_CARRIER],
  ] as const) {
    const existing = (await repository.list(kind)).find((account) => account.name === name);
    if (existing) {
      keys[kind] = { id: existing.id, key: (await accounts.issueKey(existing.id)).api_key };
    } else {
      const location = kind === 'terminal' ? { lat: -23.9608, lng: -46.3336, radius_m: 800 } : null;
      const created = await accounts.create({ kind, name, location });
      keys[kind] = { id: created.id, key: created.api_key };
    }
  }
  for (const [set, ref, body] of LAYOUTS) {
    const parsed = parseLayoutBody(set, body);
    if (!parsed.value) throw new Error(`demo layout ${ref} is invalid: ${JSON.stringify(parsed.issues)}`);
    const owner = set === 'trip' ? keys.carrier.id : keys.terminal.id;
    await layouts.upsert(owner, set, ref, parsed.value.name ?? null, parsed.value.definition);
  }
  console.log(`Demo accounts are ready (${database.embedded ? 'embedded store' : 'PostgreSQL'}).

  ${DEMO_TERMINAL}  id ${keys.terminal.id}
    X-API-Key: ${keys.terminal.key}
    layouts:   appointment/demo-appointment, ticket/demo-ticket

  ${DEMO_CARRIER}   id ${keys.carrier.id}
    X-API-Key: ${keys.carrier.key}
    layouts:   trip/demo-trip

Open http://localhost:3000/docs, press Authorize, paste a key, and try GET /api/v1/layouts/{set}.
Keys are shown once; run this again for new ones.`);
} finally {
  await database.close();
}
