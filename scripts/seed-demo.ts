import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../src/app.module.js';
import { createLogger } from '../src/common/logging/logger.js';
import { loadConfig } from '../src/config/config.js';
import { openDatabase } from '../src/database/data-source.js';
import { AccountsRepository } from '../src/modules/accounts/accounts.repository.js';
import { AccountsService } from '../src/modules/accounts/accounts.service.js';
import { type LayoutSet, parseLayoutBody } from '../src/modules/layouts/layout-schema.js';
import { LayoutsRepository } from '../src/modules/layouts/layouts.repository.js';
import { AppointmentsService } from '../src/modules/appointments/appointments.service.js';
import { CreateAppointmentItemDto } from '../src/modules/appointments/dto/appointment.dto.js';
import { parseBatch } from '../src/common/batch/batch-input.js';
import { createItems } from '../src/modules/records/record-input.js';
import { DriverTokenGrantsRepository } from '../src/modules/auth/driver-token-grants.repository.js';
import { driverTokenSecret, signDriverToken } from '../src/modules/auth/driver-tokens.js';
import { ENTITIES } from '../src/entities.js';
import { ConfigError } from '../src/config/config.js';
import { DataDirLockedError } from '../src/database/data-dir-lock.js';
import { randomBytes } from 'node:crypto';
import { rolesOf } from '../src/modules/auth/permissions.js';
import { Passwords } from '../src/modules/users/passwords.js';
import { UsersRepository } from '../src/modules/users/users.repository.js';
import { UsersService } from '../src/modules/users/users.service.js';
import { commandLine, oneLine } from './command-line.js';
import { type DemoLanguage, demoLanguage, LANG_USAGE, SEED_WORDS } from './demo-language.js';

/**
 * `npm run seed:demo`: a demo terminal and carrier with a layout of every set, a demo administrator, and a fresh
 * key for each, printed for the panel and Swagger UI's Authorize button. Safe to run again: it reuses the demo
 * accounts and issues new keys. Its layouts and demo appointment are written in `--lang pt-BR|es|en` (default: the
 * environment's LANG, else en).
 */
const DEMO_TERMINAL = 'Demo Terminal';
const DEMO_ADMIN = 'Demo Admin';
const DEMO_DRIVER = { tax_id: '12345678901', driver_license_number: 'SP-998877', license_category: 'E' };
const DEMO_CARRIER = 'Demo Carrier';

/** The demo's layouts, their texts in `language` (docs/layouts.md: a layout may also give each text in several). */
function layoutsIn(language: DemoLanguage): [LayoutSet, string, object][] {
  const w = SEED_WORDS[language];
  const card = {
    name: w.cardName,
    card_layout: [
      { type: 'section', title: w.appointment },
      { type: 'field', label: w.plate, path: 'license_plate' },
      { type: 'field', label: w.container, path: 'custom_data.container.number' },
      { type: 'alert', color: 'blue', text: w.arrive, icon: 'clock' },
    ],
    modal_layout: [
      { type: 'section', title: w.driver },
      { type: 'field', label: w.taxId, path: 'driver.tax_id' },
      { type: 'field', label: w.licence, path: 'driver.driver_license_number' },
      { type: 'qrcode', path: 'ref' },
    ],
  };
  const ticket = {
    name: w.ticketName,
    elements: [
      { type: 'section', title: w.gatePass },
      { type: 'highlight', label: w.gate, path: 'content.gate' },
      {
        type: 'highlight_grid',
        items: [
          { label: w.lane, path: 'content.lane' },
          { label: w.bay, path: 'content.bay' },
        ],
      },
      { type: 'divider' },
      { type: 'tag_container', tags: [{ text: w.import, color: 'green' }] },
      { type: 'attention', text: w.scale, icon: 'warning' },
      { type: 'instruction', steps: [w.showTicket, w.followSigns] },
      { type: 'text', text: w.valid },
    ],
  };
  const trip = {
    ...card,
    name: w.tripName,
    card_layout: [
      { type: 'section', title: w.trip },
      { type: 'field', label: w.to, path: 'to_location' },
    ],
  };
  return [
    ['appointment', 'demo-appointment', card],
    ['ticket', 'demo-ticket', ticket],
    ['trip', 'demo-trip', trip],
  ];
}

const USAGE = `npm run seed:demo [-- ${LANG_USAGE}]`;
const options = commandLine({ lang: { type: 'string' } }, USAGE);

async function seed(): Promise<void> {
  const language = demoLanguage(options.lang);
  const config = loadConfig();
  const database = openDatabase(config, ENTITIES);
  let app: INestApplicationContext | undefined;
  try {
    await database.dataSource.initialize();
    await database.dataSource.runMigrations({ transaction: 'each' });
    // The service's own modules, without HTTP or sockets: the seed writes through the same rules as the API.
    app = await NestFactory.createApplicationContext(AppModule.forRoot({ config, database, logger: createLogger('warn') }), {
      logger: false,
      abortOnError: false,
    });
    const repository = app.get(AccountsRepository);
    const accounts = app.get(AccountsService);
    const layouts = app.get(LayoutsRepository);

    const keys: Record<string, { id: string; key: string }> = {};
    for (const [kind, name] of [
      ['terminal', DEMO_TERMINAL],
      ['carrier', DEMO_CARRIER],
      ['admin', DEMO_ADMIN],
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
    for (const [set, ref, body] of layoutsIn(language)) {
      const parsed = parseLayoutBody(set, body);
      if (!parsed.value) throw new Error(`demo layout ${ref} is invalid: ${JSON.stringify(parsed.issues)}`);
      const owner = set === 'trip' ? keys.carrier.id : keys.terminal.id;
      await layouts.upsert(owner, set, ref, parsed.value.name ?? null, parsed.value.definition);
    }
    // One person of each role of each demo account, with a fresh password on every run.
    const people: { account: string; role: string; email: string; password: string }[] = [];
    const users = app.get(UsersService);
    for (const [kind, name] of [
      ['terminal', DEMO_TERMINAL],
      ['carrier', DEMO_CARRIER],
      ['admin', DEMO_ADMIN],
    ] as const) {
      const account = (await accounts.findById(keys[kind].id))!;
      for (const role of rolesOf(kind)) {
        const email = `${role}@${name.toLowerCase().replace(/\s+/g, '-')}.example`;
        const password = `demo-${randomBytes(9).toString('base64url')}`;
        const existing = await app.get(UsersRepository).setPassword(email, await app.get(Passwords).hash(password));
        if (!existing) await users.create(account, { email, role, name: `Demo ${role}`, password }, '');
        people.push({ account: name, role, email, password });
      }
    }
    // A demo appointment for the demo driver, its window open from an hour ago to eight hours from now.
    const appointments = app.get(AppointmentsService);
    const ref = `DEMO-${new Date().toISOString().slice(0, 16).replace(/\D/g, '')}`;
    const hour = 3_600_000;
    const item = {
      driver: DEMO_DRIVER,
      appointment: {
        ref,
        layout_ref: 'demo-appointment',
        license_plate: 'ABC1D23',
        summary: SEED_WORDS[language].summary,
        window_start: new Date(Date.now() - hour).toISOString(),
        window_end: new Date(Date.now() + 8 * hour).toISOString(),
        custom_data: { container: { number: 'MSCU1234567' } },
      },
    };
    // A second one for the truck with no phone: the gate camera reads its plate (docs/gate.md), in the other spelling.
    const camera = {
      ...item,
      // Its window opens half an hour after the first one's, so the driver's next appointment is always the first.
      appointment: {
        ...item.appointment,
        ref: `${ref}-CAM`,
        license_plate: 'BRA2E19',
        summary: 'Export container drop-off, berth 5',
        window_start: new Date(Date.now() - hour / 2).toISOString(),
      },
    };
    // Validated as the API validates a POST body.
    const items = parseBatch([item, camera], 2, createItems(CreateAppointmentItemDto));
    await appointments.create(keys.terminal.id, { items, path: (_index, within) => within }).catch((error: { code?: string }) => {
      if (error.code !== 'DUPLICATE_KEY') throw error;
    });
    const secret = Buffer.from(await driverTokenSecret(config, database.dataSource), 'utf8');
    const generation = await app.get(DriverTokenGrantsRepository).generationFor(DEMO_DRIVER.tax_id, keys.terminal.id);
    const driverToken = signDriverToken(
      secret,
      { taxId: DEMO_DRIVER.tax_id, partnerId: keys.terminal.id, generation: generation! },
      config.driverTokenTtlMinutes,
    );
    // The commands printed below reach the service on the port this environment configures, not always 3000.
    const serviceUrl = `http://localhost:${config.port}`;
    const [start, urlArg] = config.port === 3000 ? ['npm start', ''] : [`PORT=${config.port} npm start`, ` --url ${serviceUrl}`];

    console.log(`Demo accounts are ready (${database.embedded ? 'embedded store' : 'PostgreSQL'}; layouts in ${language}).

  ${DEMO_TERMINAL}  id ${keys.terminal.id}
    X-API-Key: ${keys.terminal.key}
    layouts:   appointment/demo-appointment, ticket/demo-ticket

  ${DEMO_CARRIER}   id ${keys.carrier.id}
    X-API-Key: ${keys.carrier.key}
    layouts:   trip/demo-trip

  ${DEMO_ADMIN}     id ${keys.admin.id}
    X-API-Key: ${keys.admin.key}
    (the panel's Accounts page: accounts, keys, a terminal's gate geofence)

  Demo driver    CPF ${DEMO_DRIVER.tax_id.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4')}, appointment ${ref} (window open for the next 8 hours)
    driver token for ${DEMO_TERMINAL} (valid until ${new Date(driverToken.expires_at).toLocaleString(language, { dateStyle: 'medium', timeStyle: 'short' })}):
    ${driverToken.token}

People (sign in on the panel with an email and its password; new passwords on every run):
${people.map((p) => `  ${p.account.padEnd(14)} ${p.role.padEnd(11)} ${p.email.padEnd(36)} ${p.password}`).join('\n')}

Next, each in a terminal of its own:
  ${start}
  npm run sim:terminal -- --key ${keys.terminal.key}${urlArg}${language === 'en' ? '' : ` --lang ${language}`}
  npm run sim:driver -- --token ${driverToken.token} --checkin-next${urlArg}

A truck with no phone (appointment ${ref}-CAM, plate BRA2E19): the gate camera reads it, in the old spelling:
  npm run sim:camera -- --key ${keys.terminal.key} --plate BRA-2419 --stage arrival${urlArg}

Web panel: ${serviceUrl}/panel (sign in as one of the people above, or with a key)
Driver app: ${serviceUrl}/app#token=${driverToken.token}

Swagger UI: ${serviceUrl}/docs (Authorize with a key above). Keys are shown once; run this again for new ones.

For the README's curl examples, in your shell:
  export GATE_URL=${serviceUrl} GATE_TERMINAL_KEY=${keys.terminal.key} GATE_DEMO_REF=${ref}`);
  } finally {
    // Closing the app closes the store too.
    await (app ? app.close() : database.close());
  }
}

// A failure is one line for the person who ran it (the store in use by the service, a bad variable…), and exit 1.
await seed().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof DataDirLockedError;
  console.error(`seed:demo failed: ${known ? error.message : oneLine(error)}`);
  process.exit(1);
});
