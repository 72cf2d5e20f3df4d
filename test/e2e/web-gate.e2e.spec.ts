import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { gateScene, type GateScene } from '../factories/checkin.js';
import { uniqueRef } from '../factories/records.js';
import { connectTerminal } from '../factories/sockets.js';
import { newUser, type TestUser } from '../factories/users.js';
import {
  launchBrowser,
  openPage,
  PHONE,
  postgresqlOnly,
  seriousA11yViolations,
  startWebApp,
  STORES,
  type Store,
} from '../setup/browser.js';
import { SERVICE_START_MS } from '../setup/processes.js';
import type { TestApp } from '../setup/test-app.js';
import { offending, visibleTexts } from '../setup/words.js';

/**
 * The panel's Gate page in a real browser, on a 1024×768 touch tablet: a plate read the service referred shows up live
 * with its picture, readings and the appointment it nearly matches; the clerk resolves it with one press, the terminal
 * server is asked and the driver's phone shows the ticket; who is inside, today's arrivals and a search by plate in the
 * other spelling. A viewer sees it all without the buttons that act.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const ZONE = 'America/Sao_Paulo';
const TABLET = { viewport: { width: 1024, height: 768 }, hasTouch: true, deviceScaleFactor: 1, timezoneId: ZONE };
/** A 1×1 PNG: the camera's picture. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const TICKET = { accepted: true, tickets: [{ layout_ref: 'gate-pass', content: { gate: 'B4', bay: 9 } }] };

let reads = 0;
/** A plate read as a gate camera sends it. */
const read = (plate: string, fields: Record<string, unknown> = {}) => ({
  read_id: `cam-${process.pid}-${++reads}`,
  lane: 'entrada-1',
  stage: 'arrival',
  plate,
  confidence: 0.95,
  read_at: new Date().toISOString(),
  ...fields,
});

/** Signs a person in on /panel with the email and password form, in whatever language the page speaks. */
async function signIn(page: Page, url: string, person: TestUser, words: { email: string; password: string; out: string }) {
  await page.goto(`${url}/panel`);
  await page.getByLabel(words.email).fill(person.email);
  await page.getByLabel(words.password).fill(person.password);
  await page.getByLabel(words.password).press('Enter');
  await page.getByRole('button', { name: words.out }).waitFor();
}

/** Controls of the page smaller than a finger (44 px a side), by their text. */
const smallTargets = (page: Page) =>
  page.evaluate<string[]>(`[...document.querySelectorAll('.panel-bar button, .panel-bar select, main button, main input')]
    .filter((element) => element.checkVisibility())
    .map((element) => [element, element.getBoundingClientRect()])
    .filter(([, box]) => box.width < 44 || box.height < 44)
    .map(([element, box]) => (element.textContent || element.getAttribute('aria-label') || element.id) + ' ' + box.width + '×' + box.height)`);

describe.each(STORES)('the Gate page on %s', (storeName: Store) => {
  const onPostgresql = postgresqlOnly(storeName);
  let service: Awaited<ReturnType<typeof startWebApp>>;
  let gate: TestApp;
  let url: string;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    service = await startWebApp(storeName);
    ({ gate, url } = service);
  }, SERVICE_START_MS);
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await service?.close();
  });

  /** A terminal whose server answers every check-in `answer` (with a ticket unless given), and a truck of plate RST2445 due now. */
  async function terminalWithTruck(answer: object = TICKET): Promise<{ scene: GateScene; truck: { id: string; ref: string } }> {
    const scene = await gateScene(gate.http);
    const truck = await scene.appointment({ ref: uniqueRef('AG'), license_plate: 'RST2445' });
    sockets.push(await connectTerminal(url, scene.terminal.key, () => answer));
    return { scene, truck };
  }
  const sendRead = async (scene: GateScene, body: object) => {
    const res = await gate.http.post('/api/v1/gate/reads').set('X-API-Key', scene.terminal.key).send(body);
    expect(res.status).toBe(201);
    return res.body.data[0] as { outcome: string; referral_id?: string; appointment_ref?: string };
  };

  it('a gate clerk in pt-BR on a tablet resolves a look-alike read with one press, and the phone shows the ticket', async () => {
    const { scene, truck } = await terminalWithTruck();
    const clerk = await newUser(gate, scene.terminal.id, 'gate');
    const phone = await openPage(browser, { ...PHONE, locale: 'pt-BR', timezoneId: ZONE });
    const tablet = await openPage(browser, { ...TABLET, locale: 'pt-BR' });
    const { page, problems, screenshot } = tablet;
    // The page follows the /panel socket: it never reads the event feed, nor asks for the referrals again unprompted.
    const feedReads: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/v1/events') feedReads.push(request.url());
    });
    try {
      await phone.page.goto(`${url}/app#token=${scene.token}`);
      await phone.page.getByRole('status').filter({ hasText: 'Ao vivo' }).waitFor();

      await signIn(page, url, clerk, { email: 'E-mail', password: 'Senha', out: 'Sair' });
      const navigation = page.getByRole('navigation');
      expect(await navigation.getByRole('button').allTextContents()).toEqual(['Agendamentos', 'Portaria', 'Minha conta']);
      await navigation.getByRole('button', { name: 'Portaria' }).click();
      await page.locator('[data-live="live"]').waitFor();
      await page.getByText('Nenhuma leitura aguarda conferência.').waitFor();

      // A camera reads S as 5: only a look-alike of the truck's plate, never decided alone.
      const sent = read('R5T2445', {
        candidates: [{ plate: 'R5T2446', confidence: 0.2 }],
        image: { content_type: 'image/png', data: PNG },
      });
      expect(await sendRead(scene, sent)).toMatchObject({ outcome: 'referred' });

      const referral = page.getByRole('article', { name: 'Leitura da placa R5T2445' });
      await referral.getByText('Só foi encontrada uma placa com letras ou números parecidos.').waitFor();
      const picture = referral.getByRole('img', { name: 'Foto da câmera da placa R5T2445' });
      await picture.waitFor();
      expect(await picture.getAttribute('src')).toBe(`data:image/png;base64,${PNG}`);
      await referral.getByText('R5T2446 (20%)').waitFor();
      await referral.getByText('Chegada', { exact: true }).waitFor();
      const candidate = referral.locator(`.candidate[data-ref="${truck.ref}"]`);
      await candidate.getByText('RST2445').waitFor();
      await candidate.getByText('Agendado').waitFor();
      const resolve = candidate.getByRole('button', { name: `É o ${truck.ref}` });
      expect(await smallTargets(page)).toEqual([]);
      expect(offending(await visibleTexts(page, 'main'))).toEqual([]);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await screenshot(`${storeName}-panel-gate-referral-pt-BR`);

      // One press: the read acts on the truck as a match would, through the terminal server's handshake.
      await resolve.tap();
      await page
        .getByRole('status')
        .filter({ hasText: `Placa R5T2445 conferida: ${truck.ref}.` })
        .waitFor();
      await page.getByText('Nenhuma leitura aguarda conferência.').waitFor();
      await phone.page
        .getByRole('article', { name: `Ticket de ${truck.ref}` })
        .getByText('B4', { exact: true })
        .waitFor();
      const [listed] = (await gate.http.get(`/api/v1/appointments?plate=RST2445`).set('X-API-Key', scene.terminal.key)).body.data.items;
      expect(listed.appointment).toMatchObject({ ref: truck.ref, status: 'CHECKED_IN', arrived_at: sent.read_at, entered_at: null });

      // Today's arrivals, live: the truck checked in, with the time it arrived on the clerk's clock.
      const arrivals = page.getByRole('region', { name: 'Chegadas de hoje' });
      const arrivedAt = new Intl.DateTimeFormat('pt-BR', { timeStyle: 'short', timeZone: ZONE }).format(new Date(sent.read_at));
      const arrived = arrivals.locator(`tr[data-ref="${truck.ref}"]`);
      await arrived.getByText('Check-in feito').waitFor();
      await arrived.getByText(arrivedAt).waitFor();

      // The entry camera reads it exactly: it goes in, and shows inside.
      expect(await sendRead(scene, read('RST-2445', { stage: 'entry', confidence: 0.99 }))).toMatchObject({ outcome: 'matched' });
      const inside = page.getByRole('region', { name: 'Dentro do terminal agora' });
      await inside.locator(`tr[data-ref="${truck.ref}"]`).getByText('Em andamento').waitFor();

      // A search by plate in the other spelling (Mercosul) and in lower case finds it.
      await page.getByLabel('Placa, em qualquer grafia').fill('rst-2e45');
      await page.getByRole('search').getByRole('button', { name: 'Procurar' }).tap();
      await page
        .getByRole('region', { name: 'Agendamentos com a placa rst-2e45' })
        .locator(`tr[data-ref="${truck.ref}"]`)
        .getByText('Em andamento')
        .waitFor();
      expect(offending(await visibleTexts(page, 'main'))).toEqual([]);
      expect(await smallTargets(page)).toEqual([]);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await screenshot(`${storeName}-panel-gate-inside-pt-BR`);
      expect(feedReads).toEqual([]);
      expect(problems).toEqual([]);
      expect(phone.problems).toEqual([]);
    } finally {
      await tablet.context.close();
      await phone.context.close();
    }
  });

  onPostgresql('a viewer sees a referral, its readings and candidates, with no button that acts', async () => {
    const { scene, truck } = await terminalWithTruck();
    const viewer = await newUser(gate, scene.terminal.id, 'viewer');
    const { page, context, problems, screenshot } = await openPage(browser, { ...TABLET, locale: 'en-US' });
    try {
      await signIn(page, url, viewer, { email: 'Email', password: 'Password', out: 'Sign out' });
      await page.getByRole('navigation').getByRole('button', { name: 'Gate' }).click();
      await page.getByText('No read waits for a clerk.').waitFor();
      expect(await sendRead(scene, read('rst 2445', { confidence: 0.5 }))).toMatchObject({ outcome: 'referred' });

      const referral = page.getByRole('article', { name: 'Read of plate rst 2445' });
      await referral.getByText('The camera is not sure of this reading.').waitFor();
      await referral.getByText('No picture').waitFor();
      await referral.locator(`.candidate[data-ref="${truck.ref}"]`).getByText('RST2445').waitFor();
      expect(await referral.getByRole('button').count()).toBe(0);
      expect(await referral.locator('input').count()).toBe(0);
      // The page's own search stays: reading is what a viewer may do.
      await page.getByRole('search').waitFor();
      expect(await seriousA11yViolations(page)).toEqual([]);
      await screenshot(`${storeName}-panel-gate-viewer`);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  onPostgresql('an owner sees why the terminal refused, is told so again on resolving, and closes the read with a note', async () => {
    const { scene, truck } = await terminalWithTruck({ accepted: false, reason: 'Not cleared by customs' });
    const owner = await newUser(gate, scene.terminal.id, 'owner');
    const { page, context, problems } = await openPage(browser, { ...TABLET, locale: 'en-US' });
    try {
      await signIn(page, url, owner, { email: 'Email', password: 'Password', out: 'Sign out' });
      await page.getByRole('navigation').getByRole('button', { name: 'Gate' }).click();
      await page.getByText('No read waits for a clerk.').waitFor();
      const sent = read('RST2445', { confidence: 0.99 });
      const outcome = await sendRead(scene, sent);
      expect(outcome).toMatchObject({ outcome: 'referred' });

      const referral = page.getByRole('article', { name: 'Read of plate RST2445' });
      await referral.getByText('The terminal did not accept the check-in. The terminal said: Not cleared by customs').waitFor();
      await referral.getByRole('button', { name: `It is ${truck.ref}` }).tap();
      await referral.getByRole('alert').filter({ hasText: 'The terminal refused the check-in: Not cleared by customs' }).waitFor();
      // Still open, still the clerk's: close it without an appointment.
      await referral.getByLabel('Note (optional)').fill('Sent to customs');
      await referral.getByRole('button', { name: 'No appointment: close it' }).tap();
      await page.getByRole('status').filter({ hasText: 'Plate RST2445: closed without an appointment.' }).waitFor();
      await page.getByText('No read waits for a clerk.').waitFor();
      const resolved = await gate.http.get('/api/v1/gate/referrals?status=resolved').set('X-API-Key', scene.terminal.key);
      expect(resolved.body.data.items[0]).toMatchObject({
        id: outcome.referral_id,
        resolution: { outcome: 'rejected', appointment_ref: null, note: 'Sent to customs' },
      });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
