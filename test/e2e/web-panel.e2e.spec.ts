import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { newCarrier, newTerminal } from '../factories/accounts.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, createRecords } from '../factories/records.js';
import { gateScene, minutes } from '../factories/checkin.js';
import { connectTerminal } from '../factories/sockets.js';
import { type Receiver, startReceiver, untilReceived } from '../factories/webhook-receiver.js';
import {
  DESKTOP,
  launchBrowser,
  PHONE,
  openPage,
  postgresqlOnly,
  seriousA11yViolations,
  sessionSize,
  shownTaxId,
  signInToPanel as signIn,
  startWebApp,
  STORES,
  type Store,
} from '../setup/browser.js';
import { SERVICE_START_MS, until } from '../setup/processes.js';
import { TEST_ADMIN_KEY, type TestApp } from '../setup/test-app.js';

/** The web panel at /panel in a real browser, on PostgreSQL, and its sign-in and live board on the embedded store too. */
let gate: TestApp;
let url: string;
let store: Store;
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe.each(STORES)('the web panel (/panel) on %s', (storeName) => {
  const onPostgresql = postgresqlOnly(storeName);
  let service: Awaited<ReturnType<typeof startWebApp>>;
  beforeAll(async () => {
    store = storeName;
    // Webhooks in these tests go to receivers on 127.0.0.1, which the URL checks refuse unless this is set.
    service = await startWebApp(store, { WEBHOOK_ALLOW_PRIVATE: 'true' });
    ({ gate, url } = service);
  }, SERVICE_START_MS);
  afterAll(async () => {
    await service?.close();
  });

  it('signs in with an API key, names a bad one, and signs out leaving nothing behind', async () => {
    const terminal = await newTerminal(gate.http);
    const { page, context, problems, screenshot } = await openPage(browser);
    try {
      await page.goto(`${url}/panel`);
      await page.getByRole('button', { name: 'API key', exact: true }).click();
      await page.getByLabel('API key').fill('gsk_not-a-key');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'This API key is unknown or was revoked.' }).waitFor();
      expect(await seriousA11yViolations(page)).toEqual([]);
      await screenshot(`${store}-panel-sign-in`);

      await page.getByLabel('API key').fill(terminal.key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('terminal account').waitFor();
      // Who the key is comes from GET /api/v1/me: the account's name too.
      expect(await page.locator('.account-kind').textContent()).toBe(`${terminal.name} · Terminal account`);
      await page.getByRole('navigation').getByRole('button', { name: 'Layouts' }).waitFor();
      expect(await context.cookies()).toEqual([]);
      // A reload keeps the session of the tab.
      await page.reload();
      await page.getByText('terminal account').waitFor();

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Email').waitFor();
      expect(await sessionSize(page)).toBe(0);
      expect(gate.logs.some((line) => JSON.stringify(line).includes(terminal.key))).toBe(false);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  onPostgresql('makes a ticket layout in the editor (add, edit, reorder, remove) and previews it with editable sample data', async () => {
    const terminal = await newTerminal(gate.http);
    const { page, context, problems, screenshot } = await openPage(browser);
    try {
      await signIn(page, url, terminal.key);
      await page.getByRole('navigation').getByRole('button', { name: 'Layouts' }).click();
      await page.getByRole('button', { name: 'Tickets' }).click();
      await page.getByText('No layouts yet').waitFor();
      await page.getByLabel('New layout ref').fill('web-pass');
      await page.getByRole('button', { name: 'Create layout' }).click();

      await page.getByLabel('Name', { exact: true }).fill('Web gate pass');
      const add = async (kind: string) => {
        await page.getByLabel('Add to the ticket').selectOption({ label: kind });
        await page.getByRole('button', { name: 'Add element' }).click();
      };
      await add('Highlight');
      await add('Section title');
      await add('Text');
      await add('Instructions');
      const element = (n: number) => page.getByRole('group', { name: new RegExp(`^Ticket element ${n}:`) });
      await element(2).getByLabel('Title').fill('Your gate');
      await element(2).getByRole('button', { name: 'Move Ticket element 2 up' }).click();
      await element(3).getByRole('button', { name: 'Remove Ticket element 3' }).click();
      await element(3).getByLabel('Step 1', { exact: true }).fill('Drive to lane 4');
      await element(3).getByRole('button', { name: 'Add step' }).click();
      await element(3).getByLabel('Step 2', { exact: true }).fill('Wait for the green light');
      // The preview draws the edits as they are made, before anything is saved.
      const preview = page.getByTestId('preview');
      await preview.getByRole('article', { name: 'Ticket preview' }).getByText('Wait for the green light').waitFor();
      await preview.getByText('Your gate').waitFor();
      expect((await gate.http.get('/api/v1/layouts/ticket/web-pass').set('X-API-Key', terminal.key)).status).toBe(404);
      await page.getByRole('button', { name: 'Save layout' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

      await preview.getByRole('article', { name: 'Ticket preview' }).getByText('A3', { exact: true }).waitFor();
      expect(await preview.locator('.elements > *').evaluateAll((nodes) => nodes.map((node) => node.textContent))).toEqual([
        'Your gate',
        'GateA3',
        'Drive to lane 4Wait for the green light',
      ]);
      // Sample data the person edits redraws the preview.
      await page.getByText('Edit the sample data').click();
      await page.getByLabel('Sample data (JSON)').fill('{"content": {"gate": "Z9"}}');
      await preview.getByText('Z9').waitFor();
      await page.getByRole('definition').filter({ hasText: 'Z9' }).waitFor();
      // An edit of the saved layout shows before it is saved too.
      await element(1).getByLabel('Title').fill('Your lane');
      await preview.getByText('Your lane').waitFor();
      await screenshot(`${store}-panel-layout-editor`);
      expect(await seriousA11yViolations(page)).toEqual([]);

      const stored = await gate.http.get('/api/v1/layouts/ticket/web-pass').set('X-API-Key', terminal.key);
      expect(stored.body.data).toMatchObject({
        name: 'Web gate pass',
        elements: [
          { type: 'section', title: 'Your gate' },
          { type: 'highlight', label: 'Gate', path: 'content.gate' },
          { type: 'instruction', steps: ['Drive to lane 4', 'Wait for the green light'] },
        ],
      });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  onPostgresql("edits a layout whose texts are in several languages: the panel's language shown and edited, the others kept", async () => {
    const terminal = await newTerminal(gate.http);
    await putLayout(gate.http, terminal.key, 'ticket', 'multi', {
      name: 'Three languages',
      elements: [
        { type: 'section', title: { 'pt-BR': 'Passe do portão', es: 'Pase de acceso', en: 'Gate pass' } },
        { type: 'highlight', label: { en: 'Gate', es: 'Puerta' }, path: 'content.gate' },
        { type: 'instruction', steps: ['Lane 3', { 'pt-BR': 'Pare na balança', en: 'Stop at the scale' }] },
        { type: 'tag_container', tags: [{ text: { 'pt-BR': 'Refrigerado', en: 'Reefer' }, color: 'blue' }] },
      ],
    });
    const { page, context, problems, screenshot } = await openPage(browser);
    try {
      await signIn(page, url, terminal.key);
      await page.getByRole('navigation').getByRole('button', { name: 'Layouts' }).click();
      await page.getByRole('button', { name: 'Tickets' }).click();
      await page.getByRole('button', { name: 'Edit multi' }).click();
      const preview = page.getByTestId('preview').getByRole('article');
      // In English: each text's English, the other languages named and kept.
      expect(await page.locator('#elements-0-title').inputValue()).toBe('Gate pass');
      await page.getByText('Also written in Português (Brasil), Español: kept as written.').waitFor();
      await preview.getByText('Stop at the scale').waitFor();

      // In Portuguese: the Portuguese texts, a missing one empty with what drivers see meanwhile; the preview in Portuguese.
      await page.getByRole('combobox', { name: 'Language' }).selectOption('pt-BR');
      await preview.getByText('Pare na balança').waitFor();
      await preview.getByText('Refrigerado').waitFor();
      expect(await page.locator('#elements-0-title').inputValue()).toBe('Passe do portão');
      expect(await page.locator('#elements-1-label').inputValue()).toBe('');
      await page.getByText('Ainda não escrito neste idioma; escrito em Español, English (mantido como está)').waitFor();
      expect(await page.locator('#elements-2-steps-0').inputValue()).toBe('Lane 3');
      await page.locator('#elements-0-title').fill('Passe de entrada');
      await page.locator('#elements-1-label').fill('Portão');
      await preview.getByText('Passe de entrada').waitFor();
      await preview.getByText('Portão').waitFor();
      await screenshot(`${store}-panel-layout-languages-pt-BR`);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Salvar layout' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /^Salvo\./ })
        .waitFor();

      const saved = await gate.http.get('/api/v1/layouts/ticket/multi').set('X-API-Key', terminal.key);
      expect(saved.body.data.elements).toEqual([
        { type: 'section', title: { 'pt-BR': 'Passe de entrada', es: 'Pase de acceso', en: 'Gate pass' } },
        { type: 'highlight', label: { en: 'Gate', es: 'Puerta', 'pt-BR': 'Portão' }, path: 'content.gate' },
        { type: 'instruction', steps: ['Lane 3', { 'pt-BR': 'Pare na balança', en: 'Stop at the scale' }] },
        { type: 'tag_container', tags: [{ text: { 'pt-BR': 'Refrigerado', en: 'Reefer' }, color: 'blue' }] },
      ]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  onPostgresql('adds every element kind of both sets, each saved as the service takes it and drawn in the preview', async () => {
    const terminal = await newTerminal(gate.http);
    const { page, context, problems } = await openPage(browser);
    try {
      await signIn(page, url, terminal.key);
      await page.getByRole('navigation').getByRole('button', { name: 'Layouts' }).click();
      const make = async (ref: string, parts: Record<string, string[]>) => {
        await page.getByLabel('New layout ref').fill(ref);
        await page.getByRole('button', { name: 'Create layout' }).click();
        for (const [part, kinds] of Object.entries(parts)) {
          for (const kind of kinds) {
            await page.getByLabel(`Add to the ${part}`).selectOption({ label: kind });
            await page.getByLabel(`Add to the ${part}`).locator('xpath=..').getByRole('button', { name: 'Add element' }).click();
          }
        }
        await page.getByRole('button', { name: 'Save layout' }).click();
        await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      };
      const cardKinds = ['Section title', 'Field', 'Alert', 'QR code'];
      await make('every-card', { card: cardKinds, 'detail modal': cardKinds });
      await page
        .getByTestId('preview')
        .getByRole('img', { name: /^QR code: / })
        .first()
        .waitFor();
      const card = (await gate.http.get('/api/v1/layouts/appointment/every-card').set('X-API-Key', terminal.key)).body.data;
      expect(card.card_layout.map((e: { type: string }) => e.type)).toEqual(['section', 'field', 'alert', 'qrcode']);
      expect(card.modal_layout.map((e: { type: string }) => e.type)).toEqual(['section', 'field', 'alert', 'qrcode']);

      await page.getByRole('button', { name: 'Back to the list' }).click();
      await page.getByRole('button', { name: 'Tickets' }).click();
      const ticketKinds = ['Field', 'Section title', 'Divider', 'Tags', 'Attention', 'Instructions', 'Text', 'Highlight', 'Highlight grid'];
      await make('every-ticket', { ticket: ticketKinds });
      await page.getByTestId('preview').getByRole('article', { name: 'Ticket preview' }).getByText('First step').waitFor();
      const ticket = (await gate.http.get('/api/v1/layouts/ticket/every-ticket').set('X-API-Key', terminal.key)).body.data;
      expect(ticket.elements.map((e: { type: string }) => e.type)).toEqual([
        'field',
        'section',
        'divider',
        'tag_container',
        'attention',
        'instruction',
        'text',
        'highlight',
        'highlight_grid',
      ]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  onPostgresql('shows an element error at the element, and LAYOUT_IN_USE explained', async () => {
    const scene = await gateScene(gate.http);
    const { page, context, problems, screenshot } = await openPage(browser);
    try {
      await signIn(page, url, scene.terminal.key);
      await page.getByRole('navigation').getByRole('button', { name: 'Layouts' }).click();
      await page.getByRole('button', { name: 'Edit appt' }).click();
      // The preview starts from the terminal's own appointment, with its QR code.
      await page.getByText(/^Taken from your record APPOINTMENT-/).waitFor();
      await page
        .getByTestId('preview')
        .getByRole('img', { name: /^QR code: / })
        .waitFor();

      await page.getByLabel('Add to the card').selectOption({ label: 'Field' });
      await page.getByRole('button', { name: 'Add element' }).first().click();
      const added = page.getByRole('group', { name: /^Card element 5:/ });
      await added.getByLabel('Path').fill('not a path!');
      await page.getByRole('button', { name: 'Save layout' }).click();
      await added.getByRole('alert').filter({ hasText: 'must be a dot path' }).waitFor();
      // Meanwhile the preview keeps the last layout it could draw, and says why.
      await page.getByRole('status').filter({ hasText: 'The layout has a problem to fix' }).waitFor();
      await page
        .getByTestId('preview')
        .getByRole('img', { name: /^QR code: / })
        .waitFor();
      expect(await added.getByLabel('Path').getAttribute('aria-invalid')).toBe('true');
      expect(
        await page
          .getByRole('group', { name: /^Card element 4:/ })
          .getByRole('alert')
          .count(),
      ).toBe(0);
      await screenshot(`${store}-panel-element-error`);

      await page.getByRole('button', { name: 'Back to the list' }).click();
      await page.getByRole('button', { name: 'Delete appt' }).click();
      await page.getByRole('button', { name: 'Yes, delete appt' }).click();
      await page.getByRole('alert').filter({ hasText: 'appt cannot be deleted. This layout is still used by live appointments' }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('moves the board live when a check-in happens: status, tickets and history', async () => {
    const scene = await gateScene(gate.http);
    const terminalSocket = await connectTerminal(url, scene.terminal.key, () => ({
      accepted: true,
      tickets: [{ layout_ref: 'gate-pass', content: { gate: 'B4', bay: 9 } }],
    }));
    const { page, context, problems, screenshot } = await openPage(browser);
    // The board moves on the /panel socket's pushes: it never reads the event feed (nor polls anything else).
    const feedReads: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/v1/events') feedReads.push(request.url());
    });
    try {
      await signIn(page, url, scene.terminal.key);
      const row = page.locator('tbody tr', { has: page.getByRole('button', { name: /^APPOINTMENT-/ }) });
      await row.getByText('Scheduled').waitFor();
      await page.locator('[data-live="live"]').waitFor();
      expect(await row.locator('.ticket-count').textContent()).toBe('0');
      await row.getByRole('button', { name: /^APPOINTMENT-/ }).click();
      await page
        .getByRole('list', { name: /^History of / })
        .getByText('Created', { exact: true })
        .waitFor();

      const [{ id }] = (await gate.http.get('/api/v1/driver/appointments').set('Authorization', `Bearer ${scene.token}`)).body.data;
      const checkin = await gate.http
        .post(`/api/v1/driver/appointments/${id}/check-in`)
        .set('Authorization', `Bearer ${scene.token}`)
        .send({});
      expect(checkin.status).toBe(200);

      await row.getByText('Checked in').waitFor();
      await row.locator('.ticket-count').getByText('1').waitFor();
      await page
        .getByRole('list', { name: /^History of / })
        .getByText('Checked in', { exact: true })
        .waitFor();
      await page.locator('.detail').getByRole('article', { name: 'Ticket Gate ticket' }).getByText('B4', { exact: true }).waitFor();
      expect(feedReads).toEqual([]);
      await screenshot(`${store}-panel-board`);
      expect(await seriousA11yViolations(page)).toEqual([]);

      // A sign-in link for the driver, as a link and a QR code: it opens the driver app; revoking ends it.
      await page.getByRole('button', { name: `Make a sign-in link for ${shownTaxId(scene.taxId)}` }).click();
      await page.getByRole('img', { name: 'QR code of the driver app link' }).waitFor();
      const link = await page.getByRole('link', { name: 'Driver app link' }).getAttribute('href');
      expect(link).toMatch(new RegExp(`^${url}/app#token=`));
      const phone = await openPage(browser, PHONE);
      try {
        await phone.page.goto(link!);
        await phone.page
          .getByRole('article', { name: /^Ticket for / })
          // Exact: the ticket's QR caption is the appointment's id, a UUID that may hold "b4".
          .getByText('B4', { exact: true })
          .waitFor();
        await page.getByRole('button', { name: "Revoke the driver's links" }).click();
        await page
          .getByRole('status')
          .filter({ hasText: `Every driver app link made for ${shownTaxId(scene.taxId)}` })
          .waitFor();
        await phone.page.getByRole('heading', { name: 'Your sign-in has ended' }).waitFor();
        expect(phone.problems).toEqual([]);
      } finally {
        await phone.context.close();
      }

      // A filter of the listing.
      await page.getByRole('checkbox', { name: 'Scheduled' }).check();
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByText('Nothing matches these filters.').waitFor();
      expect(problems).toEqual([]);
    } finally {
      terminalSocket.close();
      await context.close();
    }
  });

  onPostgresql(
    'manages webhooks: a refused URL explained at its field, the secret shown once, a test event delivered in the log',
    async () => {
      const terminal = await newTerminal(gate.http);
      const receiver: Receiver = await startReceiver();
      const { page, context, problems, screenshot } = await openPage(browser);
      try {
        await signIn(page, url, terminal.key);
        await page.getByRole('navigation').getByRole('button', { name: 'Webhooks' }).click();
        await page.getByText('No webhooks yet.').waitFor();
        await page.getByRole('button', { name: 'New webhook' }).click();
        const form = page.getByRole('form', { name: 'New webhook' });

        // A URL the service refuses is explained at the URL field.
        await form.getByLabel('URL').fill('ftp://x');
        await form.getByRole('button', { name: 'Create webhook' }).click();
        await form.getByRole('alert').filter({ hasText: 'must use http:// or https://' }).waitFor();
        expect(await form.getByLabel('URL').getAttribute('aria-invalid')).toBe('true');
        expect(await form.getByLabel('Events').getAttribute('aria-invalid')).toBeNull();
        // WEBHOOK_URL_NOT_ALLOWED (which this service, allowing private addresses, never answers: the answer is stood in
        // for, as the service gives it) is explained at the URL field.
        await page.route('**/api/v1/webhooks', (route) =>
          route.request().method() === 'POST'
            ? route.fulfill({
                status: 400,
                contentType: 'application/json',
                body: JSON.stringify({
                  success: false,
                  error: {
                    code: 'WEBHOOK_URL_NOT_ALLOWED',
                    message: 'Webhook URL refused: intranet.example resolves to a private address, which webhooks may not reach',
                    details: { url: 'http://intranet.example/hook', host: 'intranet.example', reason: 'private' },
                  },
                }),
              })
            : route.fallback(),
        );
        await form.getByLabel('URL').fill('http://intranet.example/hook');
        await form.getByRole('button', { name: 'Create webhook' }).click();
        await form
          .getByRole('alert')
          .filter({
            hasText:
              'The host intranet.example is private (it is or resolves to a private, loopback or other non-public address). Webhooks may only reach public addresses',
          })
          .waitFor();
        expect(await form.getByLabel('URL').getAttribute('aria-invalid')).toBe('true');
        await page.unroute('**/api/v1/webhooks');
        // So is an unknown event type, at the events field.
        await form.getByLabel('URL').fill(receiver.url);
        await form.getByLabel('Events').fill('appointment.*, nothing.real');
        await form.getByRole('button', { name: 'Create webhook' }).click();
        await form.getByRole('alert').filter({ hasText: 'must be an event type or a prefix' }).waitFor();
        expect(await form.getByLabel('URL').getAttribute('aria-invalid')).toBeNull();
        await screenshot(`${store}-panel-webhook-error`);

        await form.getByLabel('Events').fill('appointment.*, ticket.created');
        await form.getByLabel('Description').fill('Our TMS');
        await form.getByRole('button', { name: 'Create webhook' }).click();
        const shown = page.getByRole('region', { name: `Secret of the new webhook to ${receiver.url}` });
        await shown.getByText('Shown only now').waitFor();
        const secret = (await shown.locator('code').textContent())!;
        expect(secret).toMatch(/^whsec_/);
        expect(await seriousA11yViolations(page)).toEqual([]);
        await shown.getByRole('button', { name: 'I have copied it' }).click();
        expect(await page.getByText(secret).count()).toBe(0);
        const row = page.locator('tbody tr', { hasText: receiver.url }).first();
        await row.getByText('appointment.*, ticket.created').waitFor();
        await row.getByText('Our TMS').waitFor();

        // A test event: it reaches the receiver, signed with the secret, and shows in the log as delivered.
        await page.getByRole('button', { name: `Send test event to ${receiver.url}` }).click();
        await page.getByRole('status').filter({ hasText: 'Test event sent' }).waitFor();
        await untilReceived(receiver, 1);
        expect(receiver.received[0].body.type).toBe('webhook.test');
        expect(() =>
          new Webhook(secret).verify(receiver.received[0].raw, receiver.received[0].headers as Record<string, string>),
        ).not.toThrow();
        const log = page.getByRole('table', { name: `Deliveries to ${receiver.url}` });
        const delivery = log.locator('tbody tr', { hasText: 'webhook.test' });
        await delivery.getByText('delivered').waitFor();
        expect(await delivery.locator('td').nth(4).textContent()).toBe('204');
        await screenshot(`${store}-panel-webhook-log`);
        expect(await seriousA11yViolations(page)).toEqual([]);

        // Rotating shows the new secret once, and it signs the next delivery.
        await page.getByRole('button', { name: `Rotate secret of ${receiver.url}` }).click();
        const rotated = page.getByRole('region', { name: `New secret for ${receiver.url}` });
        const newSecret = (await rotated.locator('code').textContent())!;
        expect(newSecret).toMatch(/^whsec_/);
        expect(newSecret).not.toBe(secret);
        await rotated.getByRole('button', { name: 'I have copied it' }).click();

        // An appointment event, then a replay from before it: the log shows it sent again with its seq.
        await putLayout(gate.http, terminal.key, 'appointment', 'card');
        // A window ahead: one already over gets an appointment.no_show event at the next sweep, a second event to replay.
        await createRecords(gate.http, terminal.key, 'appointment', [
          createItem('appointment', 'card', { window_start: minutes(24 * 60), window_end: minutes(25 * 60) }),
        ]);
        await untilReceived(receiver, 2);
        const created = receiver.received.find((r) => r.body.type === 'appointment.created')!;
        expect(() => new Webhook(newSecret).verify(created.raw, created.headers as Record<string, string>)).not.toThrow();
        await log.locator('tbody tr', { hasText: 'appointment.created' }).first().getByText('delivered').waitFor();
        await page.getByLabel('Replay events after seq').fill(String(created.body.seq! - 1));
        await page.getByRole('button', { name: 'Replay', exact: true }).click();
        await page
          .getByRole('status')
          .filter({ hasText: `1 event queued again, up to seq ${created.body.seq}.` })
          .waitFor();
        await untilReceived(receiver, 3);
        await until(
          async () => (await log.locator('tbody tr', { hasText: 'appointment.created' }).count()) === 2,
          'the replayed delivery in the log',
        );

        // Pause, then resume.
        await row.getByText('Active', { exact: true }).waitFor();
        await page.getByRole('button', { name: `Pause the webhook to ${receiver.url}` }).click();
        await page
          .getByRole('status')
          .filter({ hasText: `Webhook to ${receiver.url} paused` })
          .waitFor();
        await row.getByText('Paused', { exact: true }).waitFor();
        expect((await gate.http.get('/api/v1/webhooks').set('X-API-Key', terminal.key)).body.data[0].enabled).toBe(false);
        await page.getByRole('button', { name: `Resume the webhook to ${receiver.url}` }).click();
        await page
          .getByRole('status')
          .filter({ hasText: `Webhook to ${receiver.url} resumed` })
          .waitFor();
        await row.getByText('Active', { exact: true }).waitFor();
        expect((await gate.http.get('/api/v1/webhooks').set('X-API-Key', terminal.key)).body.data[0].enabled).toBe(true);
        // A webhook the service paused (its deliveries kept failing) says so, and how to go on.
        await gate.app
          .get(DataSource)
          .query(
            `UPDATE webhooks SET enabled = false, disabled_reason = 'deliveries_failed', failing_since = now() - interval '3 days' WHERE account_id = $1`,
            [terminal.id],
          );
        await page.getByRole('navigation').getByRole('button', { name: 'Layouts' }).click();
        await page.getByRole('navigation').getByRole('button', { name: 'Webhooks' }).click();
        await row.getByText('Paused by the service').waitFor();
        await row.getByText(/Every delivery failed since .*Fix the receiver, then resume it/).waitFor();
        expect(await seriousA11yViolations(page)).toEqual([]);
        await screenshot(`${store}-panel-webhook-paused`);
        await page.getByRole('button', { name: `Resume the webhook to ${receiver.url}` }).click();
        await row.getByText('Active', { exact: true }).waitFor();

        // Edit, then delete.
        await page.getByRole('button', { name: `Edit the webhook to ${receiver.url}` }).click();
        const edit = page.getByRole('form', { name: 'Edit webhook' });
        await edit.getByLabel('Events').fill('');
        await edit.getByRole('button', { name: 'Save webhook' }).click();
        await row.getByText('every event').waitFor();
        await page.getByRole('button', { name: `Delete the webhook to ${receiver.url}` }).click();
        await page.getByRole('button', { name: 'Yes, delete it' }).click();
        await page.getByText('No webhooks yet.').waitFor();
        expect((await gate.http.get('/api/v1/webhooks').set('X-API-Key', terminal.key)).body.data).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
        await receiver.close();
      }
    },
  );

  onPostgresql('shows a carrier its trips and trip layouts', async () => {
    const carrier = await newCarrier(gate.http);
    await putLayout(gate.http, carrier.key, 'trip', 'trip-card');
    const [ref] = await createRecords(gate.http, carrier.key, 'trip', [createItem('trip', 'trip-card')]);
    const { page, context, problems } = await openPage(browser);
    try {
      await signIn(page, url, carrier.key);
      await page.getByText('carrier account').waitFor();
      await page.locator('tbody tr', { hasText: ref }).getByText('Planned').waitFor();
      await page.locator('[data-live="live"]').waitFor();
      const moved = await gate.http
        .put('/api/v1/trips')
        .set('X-API-Key', carrier.key)
        .send({ ref, trip: { status: 'IN_TRANSIT' } });
      expect(moved.status).toBe(200);
      await page.locator('tbody tr', { hasText: ref }).getByText('In transit').waitFor();

      await page.getByRole('navigation').getByRole('button', { name: 'Layouts' }).click();
      await page.getByRole('button', { name: 'Edit trip-card' }).click();
      await page.getByText(`Taken from your record ${ref}; edit it freely, nothing is saved.`).waitFor();
      await page.getByTestId('preview').getByRole('article', { name: ref }).getByText('Bring the seal').waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('tells a person without a key where one comes from, in their language', async () => {
    for (const [locale, title, hint] of [
      ['en-US', 'No account yet?', 'npm run seed:demo'],
      ['pt-BR', 'Ainda não tem uma conta?', 'npm run seed:demo'],
      ['es-AR', '¿Todavía no tiene cuenta?', 'npm run seed:demo'],
    ] as const) {
      const { page, context, problems, screenshot } = await openPage(browser, { ...DESKTOP, locale });
      try {
        await page.goto(`${url}/panel`);
        const firstRun = page.getByRole('region', { name: title });
        await firstRun.getByText(hint).waitFor();
        await firstRun.getByText('npm run cli -- account:create --kind terminal').waitFor();
        expect(await seriousA11yViolations(page)).toEqual([]);
        await screenshot(`${store}-panel-sign-in-${locale}`);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });

  it('shows history times in the device zone (the logs are UTC without a zone) and the board in pt-BR, on a 390 px screen', async () => {
    const scene = await gateScene(gate.http);
    const [{ ref }] = (await gate.http.get('/api/v1/appointments').set('X-API-Key', scene.terminal.key)).body.data.items.map(
      (item: { appointment: { ref: string } }) => item.appointment,
    );
    const logs = (await gate.http.get(`/api/v1/appointments/logs?refs=${ref}`).set('X-API-Key', scene.terminal.key)).body.data[0].data.logs;
    const created = logs.find((log: { event: string }) => log.event === 'created').created_at as string;
    expect(created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$/);
    const zone = 'America/Sao_Paulo';
    const shown = (instant: Date) =>
      new Intl.DateTimeFormat('pt-BR', { dateStyle: 'medium', timeStyle: 'short', timeZone: zone }).format(instant).replace(/\s+/g, ' ');
    const { page, context, problems, screenshot } = await openPage(browser, { ...PHONE, locale: 'pt-BR', timezoneId: zone });
    try {
      await page.goto(`${url}/panel`);
      await page.getByRole('button', { name: 'Chave de API', exact: true }).click();
      await page.getByLabel('Chave de API').fill(scene.terminal.key);
      await page.getByRole('button', { name: 'Entrar' }).click();
      const row = page.locator('tbody tr', { hasText: ref });
      await row.getByText('Agendado', { exact: true }).waitFor();
      await row.getByRole('button', { name: ref }).click();
      const history = page.getByRole('list', { name: `Histórico de ${ref}` });
      const entry = history.locator('li[data-event="created"]');
      await entry.getByText('Criado', { exact: true }).waitFor();
      const time = (await entry.locator('time').textContent())!.replace(/\s+/g, ' ');
      // UTC, shown in São Paulo's time: not the UTC wall clock read as local time.
      expect(time).toBe(shown(new Date(`${created}Z`)));
      expect(time).not.toBe(shown(new Date(created.slice(0, 19) + '-03:00')));
      expect(await entry.locator('time').getAttribute('datetime')).toBe(new Date(`${created}Z`).toISOString());
      const body = await page.locator('body').innerText();
      expect(['SCHEDULED', 'CHECKED_IN', 'ON_GOING', 'COMPLETED', 'DELETED'].filter((code) => body.includes(code))).toEqual([]);

      // The board fits the phone: wide tables scroll inside their box, the page never gets wider than the screen.
      const overflow = await page.evaluate<{ scroll: number; client: number }>(
        '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
      );
      expect(overflow.scroll).toBeLessThanOrEqual(overflow.client);
      await screenshot(`${store}-panel-board-390-pt-BR`);
      expect(await seriousA11yViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows the sign-in code beside the QR code of a driver sign-in link, and the code signs the phone in', async () => {
    const scene = await gateScene(gate.http);
    const { page, context, problems, screenshot } = await openPage(browser);
    try {
      await signIn(page, url, scene.terminal.key);
      await page
        .getByRole('button', { name: /^APPOINTMENT-/ })
        .first()
        .click();
      await page.getByRole('button', { name: `Make a sign-in link for ${shownTaxId(scene.taxId)}` }).click();
      const region = page.getByRole('region', { name: `Driver app for ${shownTaxId(scene.taxId)}` });
      await region.getByRole('img', { name: 'QR code of the driver app link' }).waitFor();
      const code = (await region.locator('[data-code]').getAttribute('data-code'))!;
      expect(code).toMatch(/^[A-Z0-9]{8}$/);
      await screenshot(`${store}-panel-sign-in-code`);
      const phone = await openPage(browser, PHONE);
      try {
        await phone.page.goto(`${url}/app`);
        await phone.page.getByLabel('Sign-in code').fill(code);
        await phone.page.getByRole('button', { name: 'Sign in' }).click();
        await phone.page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
        expect(phone.problems).toEqual([]);
      } finally {
        await phone.context.close();
      }
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  onPostgresql('lets an admin give a terminal a gate geofence, move it and remove it', async () => {
    const terminal = await newTerminal(gate.http);
    const { page, context, problems, screenshot } = await openPage(browser);
    try {
      await signIn(page, url, TEST_ADMIN_KEY);
      const account = terminal;
      await page.getByRole('button', { name: `Keys of ${account.name}` }).click();
      const fence = page.getByRole('form', { name: `Gate geofence of ${account.name}` });
      await fence.getByLabel('Latitude').fill('abc');
      await fence.getByRole('button', { name: 'Save geofence' }).click();
      await fence.getByRole('alert').filter({ hasText: 'Latitude, longitude and radius are numbers' }).waitFor();
      await fence.getByLabel('Latitude').fill('-23.9608');
      await fence.getByLabel('Longitude').fill('-46.3336');
      await fence.getByLabel('Radius (m)').fill('900');
      await fence.getByRole('button', { name: 'Save geofence' }).click();
      await fence.getByRole('status').filter({ hasText: 'Geofence saved.' }).waitFor();
      const stored = async () =>
        (await gate.http.get(`/api/v1/admin/accounts/${terminal.id}`).set('X-API-Key', TEST_ADMIN_KEY)).body.data.location;
      expect(await stored()).toEqual({ lat: -23.9608, lng: -46.3336, radius_m: 900 });
      // Out of range: the service's own words, nothing changed.
      await fence.getByLabel('Radius (m)').fill('0');
      await fence.getByRole('button', { name: 'Save geofence' }).click();
      await fence.getByRole('alert').filter({ hasText: 'radius_m' }).waitFor();
      expect(await stored()).toEqual({ lat: -23.9608, lng: -46.3336, radius_m: 900 });
      await page.locator('tbody tr', { hasText: account.name }).getByText('-23.9608, -46.3336 ± 900 m').waitFor();
      await screenshot(`${store}-panel-admin-geofence`);
      await fence.getByRole('button', { name: 'Remove geofence' }).click();
      await fence.getByRole('status').filter({ hasText: 'Geofence removed.' }).waitFor();
      expect(await stored()).toBeNull();
      expect(await seriousA11yViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  onPostgresql('lets an admin create an account, see its key once, and revoke it', async () => {
    const { page, context, problems, screenshot } = await openPage(browser);
    try {
      await signIn(page, url, TEST_ADMIN_KEY);
      await page.getByText('admin account').waitFor();
      await page.getByLabel('Kind').selectOption('carrier');
      await page.getByLabel('Name').fill('Web Freight');
      await page.getByRole('button', { name: 'Create account' }).click();
      const shown = page.getByRole('region', { name: 'New API key for Web Freight' });
      const key = (await shown.locator('code').textContent())!;
      expect((await gate.http.get('/api/v1/trips').set('X-API-Key', key)).status).toBe(200);
      await screenshot(`${store}-panel-admin-new-key`);
      await shown.getByRole('button', { name: 'I have copied it' }).click();
      expect(await page.getByText(key).count()).toBe(0);

      await page.getByRole('button', { name: 'Keys of Web Freight' }).click();
      // Revoking asks first: Keep it leaves the key working; Yes, revoke ends it.
      const keys = page.getByRole('list', { name: 'API keys of Web Freight' });
      await keys.getByRole('button', { name: /^Revoke key / }).click();
      await keys.getByRole('button', { name: 'Keep it' }).click();
      expect((await gate.http.get('/api/v1/trips').set('X-API-Key', key)).status).toBe(200);
      await keys.getByRole('button', { name: /^Revoke key / }).click();
      await keys.getByRole('button', { name: /^Yes, revoke / }).click();
      await page
        .getByRole('list', { name: 'API keys of Web Freight' })
        .getByText(/^revoked /)
        .waitFor();
      expect((await gate.http.get('/api/v1/trips').set('X-API-Key', key)).status).toBe(401);
      expect(await seriousA11yViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
