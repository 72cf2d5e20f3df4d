import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { signDriverToken } from '../../src/modules/auth/driver-tokens.js';
import { gateScene, minutes } from '../factories/checkin.js';
import {
  launchBrowser,
  openPage,
  PHONE,
  postgresqlOnly,
  seriousA11yViolations,
  sessionItem,
  sessionSize,
  startWebApp,
  STORES,
  type Store,
} from '../setup/browser.js';
import { SERVICE_START_MS, spawnWithOutput, until, type Spawned } from '../setup/processes.js';
import type { TestApp } from '../setup/test-app.js';
import { qrDataUrl } from '../../web/src/shared/qr.js';

/** Every status the service names: the app shows each as a word, never as the code. */
const STATUS_CODES = ['PLANNED', 'IN_TRANSIT', 'SCHEDULED', 'CHECKED_IN', 'ON_GOING', 'COMPLETED', 'DELETED'];
const codesShown = (text: string) => STATUS_CODES.filter((code) => new RegExp(`\\b${code}\\b`).test(text));

/**
 * The reference driver app at /app in a real browser, phone-sized, on PostgreSQL, and its pages, sign-in, check-in and
 * ticket on the embedded store too.
 */
const JWT_SECRET = 'driver-web-app-test-secret-0123456789abcdef';
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

/** The real terminal simulator (`npm run sim:terminal`), accepting every check-in with a ticket of `layout`. */
async function simTerminal(key: string, layout: string): Promise<Spawned> {
  const terminal = spawnWithOutput(process.execPath, ['dist/scripts/sim-terminal.js', '--key', key, '--url', url, '--layout', layout], {});
  await until(() => terminal.output().includes('waiting for check-ins'), 'the terminal simulator to connect');
  return terminal;
}

describe.each(STORES)('the driver app (/app) on %s', (storeName) => {
  const onPostgresql = postgresqlOnly(storeName);
  let service: Awaited<ReturnType<typeof startWebApp>>;
  beforeAll(async () => {
    store = storeName;
    service = await startWebApp(store, { JWT_SECRET });
    ({ gate, url } = service);
  }, SERVICE_START_MS);
  afterAll(async () => {
    await service?.close();
  });

  it('serves /app and /panel with a strict Content-Security-Policy, their assets, and nothing from elsewhere', async () => {
    for (const page of ['/app', '/app/', '/panel']) {
      const res = await fetch(`${url}${page}`);
      expect(res.status).toBe(200);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).not.toContain('unsafe');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('set-cookie')).toBeNull();
      const html = await res.text();
      expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
      for (const [, asset] of html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)) {
        const file = await fetch(`${url}${asset}`);
        expect([asset, file.status]).toEqual([asset, 200]);
        expect(file.headers.get('cache-control')).toContain('immutable');
      }
    }
    // Anything else under the pages is the API's usual 404.
    for (const path of ['/assets/missing.js', '/app/deeper', '/panel/x']) {
      const res = await fetch(`${url}${path}`);
      expect([path, res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
  });

  it('signs in from the link, checks in, and shows the ticket the terminal simulator pushes', async () => {
    const scene = await gateScene(gate.http);
    const terminal = await simTerminal(scene.terminal.key, 'gate-pass');
    const { page, problems, screenshot } = await openPage(browser, PHONE);
    try {
      await page.goto(`${url}/app#token=${scene.token}`);
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      // The token left the address bar, and lives in this tab's session storage only.
      expect(page.url()).toBe(`${url}/app`);
      expect(await sessionItem(page, 'gate.driver.token')).toBe(scene.token);
      expect(await page.context().cookies()).toEqual([]);

      const card = page.getByRole('article', { name: /^APPOINTMENT-/ });
      await card.getByText('Bring the seal').waitFor();
      expect(await card.getByRole('img', { name: /^QR code: / }).count()).toBe(1);
      await screenshot(`${store}-app-appointment`);

      await card.getByRole('button', { name: 'Details' }).click();
      await page.getByRole('dialog').getByText('MSCU1234567').waitFor();
      await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();

      await card.getByRole('button', { name: 'Check in' }).click();
      const ticket = page.getByRole('article', { name: /^Ticket for APPOINTMENT-/ });
      await ticket.getByText('Stop at the scale').waitFor();
      await expect(ticket.getByText('A3').count()).resolves.toBeGreaterThan(0);
      await page
        .getByRole('status')
        .filter({ hasText: /^Checked in at/ })
        .waitFor();
      await page.getByText(/Scheduled → Checked in/).waitFor();
      await page.getByText(/New ticket for APPOINTMENT-/).waitFor();
      expect(await card.getByRole('button', { name: 'Check in' }).count()).toBe(0);
      expect(terminal.output()).toContain('accepted with a gate-pass ticket');
      await screenshot(`${store}-app-ticket`);
      expect(await seriousA11yViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      terminal.child.kill();
      await page.context().close();
    }
  });

  onPostgresql('explains each refused check-in: terminal offline, refused with its reason, outside the time slot', async () => {
    const scene = await gateScene(gate.http);
    const later = await scene.appointment({ window_start: minutes(120), window_end: minutes(180) });
    const { page, problems, screenshot } = await openPage(browser, PHONE);
    try {
      await page.goto(`${url}/app`);
      await page.getByLabel('Driver token').fill(scene.token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      expect(await seriousA11yViolations(page)).toEqual([]);
      const now = page
        .getByRole('article', { name: /^APPOINTMENT-/ })
        .filter({ hasNotText: later.ref })
        .first();
      // No terminal server is connected yet.
      await now.getByRole('button', { name: 'Check in' }).click();
      await now.getByRole('alert').filter({ hasText: "The terminal's gate system is not connected right now" }).waitFor();

      const terminal = spawnWithOutput(
        process.execPath,
        ['dist/scripts/sim-terminal.js', '--key', scene.terminal.key, '--url', url, '--reject-all', '--lang', 'en'],
        {},
      );
      try {
        await until(() => terminal.output().includes('waiting for check-ins'), 'the terminal simulator to connect');
        await now.getByRole('button', { name: 'Check in' }).click();
        await now.getByRole('alert').filter({ hasText: 'The terminal refused the check-in: The gate is closed.' }).waitFor();
      } finally {
        terminal.child.kill();
      }

      const early = page.getByRole('article', { name: later.ref });
      await early.getByRole('button', { name: 'Check in' }).click();
      await early.getByRole('alert').filter({ hasText: 'It is outside your time slot: the gate accepts you from' }).waitFor();
      await screenshot('app-checkin-refused');
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  onPostgresql('catches up after being offline: a ticket made meanwhile appears when the phone is back', async () => {
    const scene = await gateScene(gate.http);
    const { page, context, problems, screenshot } = await openPage(browser, PHONE);
    try {
      await page.goto(`${url}/app#token=${scene.token}`);
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      const [{ ref }] = await listRefs(scene.terminal.key);

      await context.setOffline(true);
      await page.getByRole('status').filter({ hasText: 'Offline' }).waitFor();
      const created = await gate.http
        .post('/api/v1/tickets')
        .set('X-API-Key', scene.terminal.key)
        .send({ appointment_ref: ref, layout_ref: 'gate-pass', content: { gate: 'OFFLINE-7', bay: 12 } });
      expect(created.status).toBe(201);
      await screenshot(`${store}-app-offline`);
      expect(await page.getByText('OFFLINE-7').count()).toBe(0);

      await context.setOffline(false);
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      await page
        .getByRole('article', { name: `Ticket for ${ref}` })
        .getByText('OFFLINE-7')
        .waitFor();
      await page.getByText(`New ticket for ${ref}`).waitFor();
      await screenshot(`${store}-app-caught-up`);
      expect(problems.filter((problem) => !/ERR_INTERNET_DISCONNECTED|WebSocket/.test(problem))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  onPostgresql('says clearly when the token is revoked, and signs in again with a new one', async () => {
    const scene = await gateScene(gate.http);
    const { page, problems, screenshot } = await openPage(browser, PHONE);
    try {
      await page.goto(`${url}/app#token=${scene.token}`);
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      const revoked = await gate.http.delete(`/api/v1/drivers/${scene.taxId}/tokens`).set('X-API-Key', scene.terminal.key);
      expect(revoked.status).toBe(200);
      await page.getByRole('heading', { name: 'Your sign-in has ended' }).waitFor();
      expect(await sessionItem(page, 'gate.driver.token')).toBeNull();
      await screenshot(`${store}-app-token-ended`);

      const fresh = await gate.http.post(`/api/v1/drivers/${scene.taxId}/tokens`).set('X-API-Key', scene.terminal.key);
      await page.getByLabel('Driver token').fill(fresh.body.data.token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Driver token').waitFor();
      expect(await sessionSize(page)).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  onPostgresql('says the sign-in has ended when the token expires while the app is open, or the link carries an expired one', async () => {
    const scene = await gateScene(gate.http);
    const claims = JSON.parse(Buffer.from(scene.token.split('.')[1], 'base64url').toString());
    // Tokens of the same grant as the scene's, signed as the service signs them, with a chosen lifetime.
    const tokenIssued = (at: number) =>
      signDriverToken(Buffer.from(JWT_SECRET), { taxId: claims.sub, partnerId: claims.partner, generation: claims.gen }, 1, at).token;
    const { page, screenshot } = await openPage(browser, PHONE);
    try {
      // Issued 50 s ago with a one-minute lifetime: good for about ten seconds more.
      await page.goto(`${url}/app#token=${tokenIssued(Date.now() - 50_000)}`);
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      await page.getByRole('heading', { name: 'Your sign-in has ended' }).waitFor();
      expect(await sessionItem(page, 'gate.driver.token')).toBeNull();

      await page.goto(`${url}/app#token=${tokenIssued(Date.now() - 2 * 3600_000)}`);
      await page.getByRole('heading', { name: 'Your sign-in has ended' }).waitFor();
      await screenshot(`${store}-app-token-expired`);
      await page.getByLabel('Driver token').fill('not-a-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'This token is not valid' }).waitFor();
    } finally {
      await page.context().close();
    }
  });

  it('speaks pt-BR and en: statuses as words, never codes; the ticket shows the QR code, plate and ref', async () => {
    const scene = await gateScene(gate.http);
    const terminal = await simTerminal(scene.terminal.key, 'gate-pass');
    const { page, problems, screenshot } = await openPage(browser, { ...PHONE, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    try {
      await page.goto(`${url}/app#token=${scene.token}`);
      await page.getByRole('status').filter({ hasText: 'Ao vivo' }).waitFor();
      expect(await page.evaluate('document.documentElement.lang')).toBe('pt-BR');
      const card = page.getByRole('article', { name: /^APPOINTMENT-/ });
      await card.getByText('Agendado', { exact: true }).waitFor();
      expect(codesShown(await page.locator('body').innerText())).toEqual([]);
      await card.getByRole('button', { name: 'Fazer check-in' }).click();
      const ticket = page.getByRole('article', { name: /^Ticket de APPOINTMENT-/ });
      await ticket.getByText('Stop at the scale').waitFor();
      await page.getByText(/Agendado → Check-in feito/).waitFor();
      await card.getByText('Check-in feito', { exact: true }).waitFor();

      // The gate pass: the appointment's own QR code (its qrcode element, the appointment id here), plate and ref.
      const [appointment] = (await gate.http.get('/api/v1/driver/appointments').set('Authorization', `Bearer ${scene.token}`)).body.data;
      const qr = ticket.getByRole('img', { name: /^Código QR: / });
      expect(await qr.getAttribute('data-qr')).toBe(appointment.id);
      expect(await qr.getAttribute('src')).toBe(qrDataUrl(appointment.id));
      await ticket.locator('.plate').getByText('ABC1D23').waitFor();
      await ticket.getByText(appointment.ref, { exact: true }).waitFor();
      expect(codesShown(await page.locator('body').innerText())).toEqual([]);
      await screenshot(`${store}-app-ticket-pt-BR`);
      expect(await seriousA11yViolations(page)).toEqual([]);

      // The switch changes the language at once, and the choice is remembered.
      await page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      await card.getByText('Checked in', { exact: true }).waitFor();
      const ticketEn = page.getByRole('article', { name: /^Ticket for APPOINTMENT-/ });
      expect(await ticketEn.getByRole('img', { name: /^QR code: / }).getAttribute('data-qr')).toBe(appointment.id);
      expect(codesShown(await page.locator('body').innerText())).toEqual([]);
      await screenshot(`${store}-app-ticket-en`);
      await page.getByRole('combobox', { name: 'Language' }).selectOption('es');
      await card.getByText('Registrado en portería', { exact: true }).waitFor();
      await screenshot(`${store}-app-ticket-es`);
      await page.reload();
      await page.getByRole('status').filter({ hasText: 'En vivo' }).waitFor();
      expect(codesShown(await page.locator('body').innerText())).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      terminal.child.kill();
      await page.context().close();
    }
  });

  it('shows the ticket offline after a reload with the network off (installed service worker), and catches up on return', async () => {
    const scene = await gateScene(gate.http);
    const [{ ref }] = await listRefs(scene.terminal.key);
    await createTicket(scene.terminal.key, ref, 'GATE-OFF-1');
    const { page, context, problems, screenshot } = await openPage(browser, PHONE);
    try {
      await page.goto(`${url}/app#token=${scene.token}`);
      await page
        .getByRole('article', { name: `Ticket for ${ref}` })
        .getByText('GATE-OFF-1')
        .waitFor();
      // The app is installable: its manifest is linked, and its service worker controls the page.
      const manifest = await page.locator('link[rel="manifest"]').getAttribute('href');
      expect(((await (await fetch(`${url}${manifest}`)).json()) as { start_url: string }).start_url).toBe('/app');
      await page.evaluate('navigator.serviceWorker.ready');
      await until(
        async () => (await page.evaluate('Boolean(navigator.serviceWorker.controller)')) === true,
        'the service worker to control /app',
      );

      await context.setOffline(true);
      await page.reload();
      const ticket = page.getByRole('article', { name: `Ticket for ${ref}` });
      await ticket.getByText('GATE-OFF-1').waitFor();
      await page.getByRole('status').filter({ hasText: 'Offline' }).waitFor();
      await page.getByText(/^You are offline\. This is what you had as of /).waitFor();
      expect(await ticket.getByRole('img', { name: /^QR code: / }).count()).toBe(1);
      await screenshot(`${store}-app-offline-reload`);

      // Brought up to date on return: a ticket made meanwhile appears.
      await createTicket(scene.terminal.key, ref, 'GATE-BACK-2');
      await context.setOffline(false);
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      await page.getByText('GATE-BACK-2').waitFor();
      expect(problems.filter((problem) => !/ERR_INTERNET_DISCONNECTED|WebSocket/.test(problem))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('keeps the last ticket on screen, with a notice, after the token expires, until the driver signs out', async () => {
    const scene = await gateScene(gate.http);
    const [{ ref }] = await listRefs(scene.terminal.key);
    await createTicket(scene.terminal.key, ref, 'KEPT-9');
    const claims = JSON.parse(Buffer.from(scene.token.split('.')[1], 'base64url').toString());
    // Issued 45 s ago with a one-minute lifetime: it ends about fifteen seconds from now, once the ticket is shown.
    const shortLived = signDriverToken(
      Buffer.from(JWT_SECRET),
      { taxId: claims.sub, partnerId: claims.partner, generation: claims.gen },
      1,
      Date.now() - 45_000,
    ).token;
    const { page, problems, screenshot } = await openPage(browser, PHONE);
    try {
      await page.goto(`${url}/app#token=${shortLived}`);
      const ticket = page.getByRole('article', { name: `Ticket for ${ref}` });
      await ticket.getByText('KEPT-9').waitFor();
      await page.getByRole('heading', { name: 'Your sign-in has ended' }).waitFor();
      expect(await sessionItem(page, 'gate.driver.token')).toBeNull();
      // The ticket stays, with its QR code, and says how old it is.
      await ticket.getByText('KEPT-9').waitFor();
      expect(await ticket.getByRole('img', { name: /^QR code: / }).count()).toBe(1);
      await page
        .getByRole('note')
        .filter({ hasText: /^This is what you had as of / })
        .waitFor();
      await screenshot(`${store}-app-ticket-kept`);
      // A reload (the tab's session is gone) still shows it.
      await page.reload();
      await ticket.getByText('KEPT-9').waitFor();
      await page.getByRole('button', { name: 'Sign out and remove it from this phone' }).click();
      await page.getByLabel('Sign-in code').waitFor();
      expect(await ticket.count()).toBe(0);
      expect(await page.evaluate('localStorage.getItem("gate.driver.kept")')).toBeNull();
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  onPostgresql("draws layout texts written in several languages in the driver's: pt-BR, then English on the switch", async () => {
    const scene = await gateScene(gate.http);
    const saved = await gate.http
      .put('/api/v1/layouts/appointment/appt')
      .set('X-API-Key', scene.terminal.key)
      .send({
        card_layout: [
          { type: 'field', label: { 'pt-BR': 'Placa', es: 'Placa', en: 'Plate' }, path: 'license_plate' },
          { type: 'alert', color: 'yellow', text: { 'pt-BR': 'Traga o lacre', en: 'Bring the seal' } },
        ],
        modal_layout: [],
      });
    expect(saved.status).toBe(200);
    const { page, problems } = await openPage(browser, { ...PHONE, locale: 'pt-BR' });
    try {
      await page.goto(`${url}/app#token=${scene.token}`);
      const card = page.getByRole('article', { name: /^APPOINTMENT-/ });
      await card.getByText('Traga o lacre').waitFor();
      await card.getByText('Placa', { exact: true }).waitFor();
      expect(await card.getByText('Bring the seal').count()).toBe(0);
      await page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
      await card.getByText('Bring the seal').waitFor();
      await card.getByText('Plate', { exact: true }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  onPostgresql('draws what the last load answered: a load in the language switched from, answered late, draws nothing', async () => {
    const scene = await gateScene(gate.http);
    const layout = {
      card_layout: [{ type: 'field', label: { 'pt-BR': 'Placa', en: 'Plate' }, path: 'license_plate' }],
      modal_layout: [],
    };
    const put = () => gate.http.put('/api/v1/layouts/appointment/appt').set('X-API-Key', scene.terminal.key).send(layout);
    expect((await put()).status).toBe(200);
    const { page, problems } = await openPage(browser, { ...PHONE, locale: 'pt-BR' });
    try {
      await page.goto(`${url}/app#token=${scene.token}`);
      const card = page.getByRole('article', { name: /^APPOINTMENT-/ });
      await card.getByText('Placa', { exact: true }).waitFor();

      // From now on the service's answers in Portuguese reach the page only when let through.
      let letThrough!: () => void;
      const held = new Promise<void>((resolve) => (letThrough = resolve));
      let heldOne!: () => void;
      const holding = new Promise<void>((resolve) => (heldOne = resolve));
      let answeredLate!: () => void;
      const late = new Promise<void>((resolve) => (answeredLate = resolve));
      await page.route('**/api/v1/driver/appointments', async (route) => {
        if (route.request().headers()['accept-language'] !== 'pt-BR') return route.continue();
        const response = await route.fetch();
        heldOne();
        await held;
        await route.fulfill({ response });
        answeredLate();
      });
      // The layout saved again: the push makes the page load in Portuguese, and that answer is held.
      expect((await put()).status).toBe(200);
      await holding;
      await page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
      await card.getByText('Plate', { exact: true }).waitFor();

      letThrough();
      await late;
      // The late answer has reached the page's code once its next frames are drawn.
      for (let frame = 0; frame < 3; frame++)
        await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50)))');
      expect(await card.getByText('Placa', { exact: true }).count()).toBe(0);
      await card.getByText('Plate', { exact: true }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  onPostgresql('asks before a link signs in over another driver: declined keeps the current one, accepted switches (pt-BR)', async () => {
    const [first, second] = [await gateScene(gate.http), await gateScene(gate.http)];
    const [firstRef] = (await listRefs(first.terminal.key)).map((item) => item.ref);
    const [secondRef] = (await listRefs(second.terminal.key)).map((item) => item.ref);
    const { page, problems, screenshot } = await openPage(browser, { ...PHONE, locale: 'pt-BR' });
    const question = page.getByRole('dialog', { name: 'Entrar como outro motorista?' });
    try {
      await page.goto(`${url}/app#token=${first.token}`);
      await page.getByRole('article', { name: firstRef }).waitFor();

      // A link opened in the same tab (the page loads again): asked, and declined.
      await page.goto('about:blank');
      await page.goto(`${url}/app#token=${second.token}`);
      await question.waitFor();
      const asked = await question.innerText();
      expect(asked).toContain('Outro motorista já entrou neste aparelho');
      for (const token of [first.token, second.token]) expect(asked).not.toContain(token.slice(0, 16));
      // Nothing is signed in over the current driver while the question is open, and the link left the address bar.
      expect(await sessionItem(page, 'gate.driver.token')).toBe(first.token);
      expect(page.url()).toBe(`${url}/app`);
      await screenshot(`${store}-app-switch-driver-pt-BR`);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await question.getByRole('button', { name: 'Não, continuar como está' }).click();
      await page.getByRole('article', { name: firstRef }).waitFor();
      expect(await question.count()).toBe(0);
      expect(await sessionItem(page, 'gate.driver.token')).toBe(first.token);

      // A link followed without leaving the page (only the fragment changes): asked too, and accepted.
      await page.goto(`${url}/app#token=${second.token}`);
      await question.getByRole('button', { name: 'Sim, trocar de motorista' }).click();
      await page.getByRole('article', { name: secondRef }).waitFor();
      expect(await page.getByRole('article', { name: firstRef }).count()).toBe(0);
      expect(await sessionItem(page, 'gate.driver.token')).toBe(second.token);
      expect(page.url()).toBe(`${url}/app`);

      // A link of the driver already signed in signs in without asking.
      await page.goto('about:blank');
      await page.goto(`${url}/app#token=${second.token}`);
      await page.getByRole('status').filter({ hasText: 'Ao vivo' }).waitFor();
      expect(await question.count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('signs in with the short code a partner hands out, once; a wrong or used code is explained', async () => {
    const scene = await gateScene(gate.http);
    const minted = await gate.http.post(`/api/v1/drivers/${scene.taxId}/tokens`).set('X-API-Key', scene.terminal.key);
    const code = minted.body.data.code as string;
    expect(code).toMatch(/^[A-Z0-9]{8}$/);
    const { page, problems, screenshot } = await openPage(browser, { ...PHONE, locale: 'pt-BR' });
    try {
      await page.goto(`${url}/app`);
      await page.getByLabel('Código de acesso').fill('ZZZZZZZZ');
      await page.getByRole('button', { name: 'Entrar' }).click();
      await page.getByRole('alert').filter({ hasText: 'Este código não é válido' }).waitFor();
      await screenshot(`${store}-app-sign-in-pt-BR`);
      // Typed as a person would: lower case, in two groups.
      await page.getByLabel('Código de acesso').fill(`${code.slice(0, 4).toLowerCase()} ${code.slice(4)}`);
      await page.getByRole('button', { name: 'Entrar' }).click();
      await page.getByRole('status').filter({ hasText: 'Ao vivo' }).waitFor();
      await page.getByRole('article', { name: /^APPOINTMENT-/ }).waitFor();
      expect(await sessionItem(page, 'gate.driver.token')).toMatch(/^ey/);
      await page.getByRole('button', { name: 'Sair' }).click();
      // Once only.
      await page.getByLabel('Código de acesso').fill(code);
      await page.getByRole('button', { name: 'Entrar' }).click();
      await page.getByRole('alert').filter({ hasText: 'Este código não é válido' }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  async function createTicket(key: string, ref: string, gateName: string): Promise<void> {
    const created = await gate.http
      .post('/api/v1/tickets')
      .set('X-API-Key', key)
      .send({ appointment_ref: ref, layout_ref: 'gate-pass', content: { gate: gateName, bay: 3 } });
    expect(created.status).toBe(201);
  }

  async function listRefs(key: string): Promise<{ ref: string }[]> {
    const res = await gate.http.get('/api/v1/appointments').set('X-API-Key', key);
    return res.body.data.items.map((item: { appointment: { ref: string } }) => item.appointment);
  }
});
