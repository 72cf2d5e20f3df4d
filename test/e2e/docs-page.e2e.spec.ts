import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Browser, Locator, Page } from 'playwright-core';
import { gateScene } from '../factories/checkin.js';
import { newUser } from '../factories/users.js';
import { ARTIFACTS, launchBrowser, openPage } from '../setup/browser.js';
import { SERVICE_START_MS } from '../setup/processes.js';
import { startTestApp, type TestApp } from '../setup/test-app.js';

/** Swagger UI at /docs in a real browser, under its Content-Security-Policy, walked as README's Swagger steps are. */
let gate: TestApp;
let url: string;
let browser: Browser;

// Swagger UI draws the whole API document in the page, twice here, and the walk executes three operations: seconds
// alone, but more than Jest's default minute while the other worker runs browser tests on the same two cores.
jest.setTimeout(180_000);

beforeAll(async () => {
  browser = await launchBrowser();
  gate = await startTestApp();
  url = `http://127.0.0.1:${(gate.app.getHttpServer().address() as { port: number }).port}`;
}, SERVICE_START_MS);
afterAll(async () => {
  await browser?.close();
  await gate?.close();
});

/** The operation block of `method path`, expanded. */
async function operation(page: Page, method: string, path: string): Promise<Locator> {
  const block = page
    .locator(`.opblock-${method.toLowerCase()}`)
    .filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });
  await block.locator('.opblock-summary').first().click();
  await block.getByRole('button', { name: 'Try it out' }).click();
  return block;
}

/** Executes an expanded operation and answers the status and body Swagger UI shows. */
async function execute(block: Locator): Promise<{ status: number; body: string }> {
  await block.getByRole('button', { name: 'Execute' }).click();
  const live = block.locator('.live-responses-table .response').first();
  await live.waitFor();
  const status = Number(await live.locator('.response-col_status').innerText());
  const body = await live.locator('.response-col_description pre').first().innerText();
  return { status, body };
}

describe('Swagger UI at /docs', () => {
  it("works under its CSP: Authorize keeps the key in the page only, and README's three Swagger steps answer", async () => {
    const scene = await gateScene(gate.http);
    const { ref } = await scene.appointment();
    const { page, context, problems } = await openPage(browser);
    try {
      // Besides the console's errors, every CSP violation the page reports, with what it refused and where.
      await page.addInitScript(
        'window.violations = []; document.addEventListener("securitypolicyviolation", (e) => window.violations.push([e.violatedDirective, e.sourceFile, e.lineNumber]))',
      );
      await page.goto(`${url}/docs`);
      await page.locator('.swagger-ui .info .title').filter({ hasText: 'Gate service' }).waitFor();

      await page.getByRole('button', { name: 'Authorize' }).first().click();
      const apiKey = page.locator('.auth-container').filter({ hasText: 'X-API-Key' });
      await apiKey.locator('input').fill(scene.terminal.key);
      await apiKey.getByRole('button', { name: 'Apply credentials' }).click();
      await apiKey.getByRole('button', { name: 'Remove authorization' }).waitFor();
      await page.locator('.modal-ux .close-modal').click();
      expect(await page.evaluate('localStorage.length')).toBe(0);

      // 1. the appointment's history
      const logs = await operation(page, 'GET', '/api/v1/appointments/logs');
      await logs.locator('tr[data-param-name="refs"]').getByRole('button', { name: 'Add string item' }).click();
      await logs.locator('tr[data-param-name="refs"] input').first().fill(ref);
      const history = await execute(logs);
      expect(history.status).toBe(200);
      expect(history.body).toContain('created');

      // 2. a ticket, then 3. a layout preview: two writes one after the other, neither refused for its Idempotency-Key
      const ticket = await operation(page, 'POST', '/api/v1/tickets');
      expect(await ticket.locator('tr[data-param-name="Idempotency-Key"] input').inputValue()).toBe('');
      await ticket
        .locator('textarea.body-param__text')
        .fill(JSON.stringify({ appointment_ref: ref, layout_ref: 'gate-pass', content: { gate: 'B7' } }));
      expect(await execute(ticket)).toMatchObject({ status: 201 });
      const preview = await operation(page, 'POST', '/api/v1/layouts/{set}/{layout_ref}/preview');
      await preview.locator('tr[data-param-name="set"] select').selectOption('ticket');
      await preview.locator('tr[data-param-name="layout_ref"] input').fill('gate-pass');
      await preview.locator('textarea.body-param__text').fill(JSON.stringify({ data: { content: { gate: 'C1', lane: 4 } } }));
      const drawn = await execute(preview);
      expect(drawn.status).toBe(200);
      expect(drawn.body).toContain('C1');
      await preview.screenshot({ path: join(ARTIFACTS, 'docs-swagger-ui-preview.png') });

      expect(await page.evaluate('localStorage.length')).toBe(0);
      expect(await page.evaluate('sessionStorage.length')).toBe(0);
      expect(await context.cookies()).toEqual([]);
      expect(await page.evaluate('window.violations')).toEqual([]);
      // The key lived in the page only: the page loaded again starts without it. (Not a reload: the address now ends in a
      // deep link to the last operation, whose `_` Swagger UI warns about in the console.)
      expect(await page.locator('.auth-wrapper .authorize').getAttribute('class')).toMatch(/\blocked\b/);
      await page.goto(`${url}/docs`);
      await page.locator('.swagger-ui .info .title').filter({ hasText: 'Gate service' }).waitFor();
      expect(await page.locator('.auth-wrapper .authorize').getAttribute('class')).toMatch(/\bunlocked\b/);
      expect(await page.evaluate('window.violations')).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('works for a person signed in in the same browser: the cookie goes by itself, and a change carries X-CSRF-Token', async () => {
    const scene = await gateScene(gate.http);
    const planner = await newUser(gate, scene.terminal.id, 'planner');
    const { page, context, problems } = await openPage(browser);
    try {
      // Signed in as the panel does, in this browser: the HttpOnly cookie is the browser's, the page never holds it.
      const signed = await context.request.post(`${url}/api/v1/sessions`, { data: { email: planner.email, password: planner.password } });
      expect(signed.status()).toBe(201);
      const { csrf_token: csrf } = (await signed.json()).data;
      const sent: Record<string, string>[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith('/preview')) sent.push(request.headers());
      });
      await page.goto(`${url}/docs`);
      await page.locator('.swagger-ui .info .title').filter({ hasText: 'Gate service' }).waitFor();

      // No Authorize: a read is the person's by the cookie alone.
      const me = await execute(await operation(page, 'GET', '/api/v1/me'));
      expect(me.status).toBe(200);
      expect(me.body).toContain(planner.email);

      // A change made with the cookie needs the session's CSRF token: the page's interceptor fetched it and sent it.
      const preview = await operation(page, 'POST', '/api/v1/layouts/{set}/{layout_ref}/preview');
      await preview.locator('tr[data-param-name="set"] select').selectOption('ticket');
      await preview.locator('tr[data-param-name="layout_ref"] input').fill('gate-pass');
      await preview.locator('textarea.body-param__text').fill(JSON.stringify({ data: { content: { gate: 'D2' } } }));
      const drawn = await execute(preview);
      expect(drawn.status).toBe(200);
      expect(drawn.body).toContain('D2');
      expect(sent.map((headers) => headers['x-csrf-token'])).toEqual([csrf]);
      expect(sent[0]['x-api-key']).toBeUndefined();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
