import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { newTerminal } from '../factories/accounts.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, createRecords, uniqueRef } from '../factories/records.js';
import { newUser, signIn } from '../factories/users.js';
import { DESKTOP, launchBrowser, openPage, seriousA11yViolations, signInToPanel, startWebApp } from '../setup/browser.js';
import { SERVICE_START_MS } from '../setup/processes.js';
import { TEST_ADMIN_KEY, type TestApp } from '../setup/test-app.js';
import { offending, visibleTexts } from '../setup/words.js';

/**
 * The panel's Audit page in a real browser (docs/web.md#the-audit-page): an owner signed in with a session, in pt-BR,
 * reads who did what after an appointment created by a key, changed by a planner and a refused sign-in; filters the
 * trail, exports it as CSV, verifies its chain; and the appointment's history names who made each entry. On
 * PostgreSQL: the page reaches the store only through the API, whose trail has its own tests on both stores.
 */
let browser: Browser;
let service: Awaited<ReturnType<typeof startWebApp>>;
let gate: TestApp;
let url: string;
beforeAll(async () => {
  browser = await launchBrowser();
  service = await startWebApp('postgresql');
  ({ gate, url } = service);
}, SERVICE_START_MS);
afterAll(async () => {
  await service?.close();
  await browser?.close();
});

const ZONE = 'America/Sao_Paulo';
/** A local calendar date on the gate's clock, `days` from today (`2026-11-29`). */
const dateInZone = (days: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(Date.now() + days * 86_400_000),
  );

/** Until every entry written so far is sealed (each is, within a second of its change): only sealed ones are shown. */
async function sealed(): Promise<void> {
  const db = gate.app.get(DataSource);
  for (;;) {
    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM audit_entries WHERE seq IS NULL`);
    if (n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The rows of the trail's table as the reader sees them: [when, who, what, changes, address]. */
const rows = (page: Page) =>
  page
    .getByRole('table', { name: 'Quem fez o quê, do mais recente ao mais antigo' })
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())));

describe('the Audit page', () => {
  it('an owner in pt-BR filters the trail, sees each entry in words, exports it as CSV and verifies it; a history names who', async () => {
    const terminal = await newTerminal(gate.http);
    await putLayout(gate.http, terminal.key, 'appointment', 'card');
    const tag = uniqueRef('audit').toLowerCase();
    const owner = await newUser(gate, terminal.id, 'owner', { email: `dona-${tag}@terminal.example` });
    const planner = await newUser(gate, terminal.id, 'planner', { email: `planejador-${tag}@terminal.example` });

    // An appointment created by the account's key, its plate changed by a planner, and a refused sign-in of the owner.
    const [ref] = await createRecords(gate.http, terminal.key, 'appointment', [
      createItem('appointment', 'card', { ref: uniqueRef('AGD') }),
    ]);
    const plannerSession = await signIn(gate.http, planner);
    const changed = await gate.http
      .put('/api/v1/appointments')
      .set('Cookie', plannerSession.cookie)
      .set('X-CSRF-Token', plannerSession.csrf)
      .send([{ ref, appointment: { license_plate: 'XYZ9K87' } }]);
    expect(changed.status).toBe(200);
    const refused = await gate.http.post('/api/v1/sessions').send({ email: owner.email, password: 'not the password at all' });
    expect(refused.status).toBe(401);
    const ownerSession = await signIn(gate.http, owner);
    await sealed();

    const { page, context, problems, screenshot } = await openPage(browser, { ...DESKTOP, locale: 'pt-BR', timezoneId: ZONE });
    try {
      const at = ownerSession.cookie.indexOf('=');
      const cookie = { name: ownerSession.cookie.slice(0, at), value: ownerSession.cookie.slice(at + 1) };
      await context.addCookies([{ ...cookie, url, httpOnly: true, sameSite: 'Lax' }]);
      await page.goto(`${url}/panel`);
      await page.getByRole('navigation').getByRole('button', { name: 'Auditoria' }).click();
      const plannerWords = `Test planner (${planner.email})`;
      const ownerWords = `Test owner (${owner.email})`;

      // The whole trail, newest first: the owner's sign-in on top.
      await page.locator('tbody tr', { hasText: 'entrou' }).first().waitFor();
      const all = await rows(page);
      expect(all[0].slice(1, 3)).toEqual([ownerWords, 'entrou']);
      expect(all.map((row) => row[2])).toEqual(
        expect.arrayContaining([`alterou o agendamento ${ref}`, `criou o agendamento ${ref}`, 'não conseguiu entrar (senha errada)']),
      );
      expect(offending(await visibleTexts(page))).toEqual([]);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await screenshot('audit-page-pt-BR');

      // By the appointment's ref: exactly its two entries, who and what in words, the plate's change, the address.
      await page.getByLabel('Ref ou e-mail do que mudou').fill(ref);
      await page.getByRole('button', { name: 'Filtrar' }).click();
      await page.locator('tbody tr').nth(1).filter({ hasText: 'criou o agendamento' }).waitFor();
      const byRef = await rows(page);
      expect(byRef.map((row) => row.slice(1))).toEqual([
        [plannerWords, `alterou o agendamento ${ref}`, 'Placa: ABC1D23 → XYZ9K87', expect.stringMatching(/127\.0\.0\.1/)],
        [
          expect.stringMatching(/^(chave «.+»|uma chave de API)$/),
          `criou o agendamento ${ref}`,
          '—',
          expect.stringMatching(/127\.0\.0\.1/),
        ],
      ]);
      // When, through Intl in the reader's language: "29 de nov. de 2026, 14:05".
      for (const row of byRef) expect(row[0]).toMatch(/^\d{1,2} de [a-zç]+\.? de \d{4}, \d\d:\d\d$/);
      expect(offending(await visibleTexts(page))).toEqual([]);

      // By action, the ref cleared: the refused sign-in alone, with its reason in words.
      await page.getByLabel('Ref ou e-mail do que mudou').fill('');
      await page.getByLabel('Ação', { exact: true }).selectOption({ label: 'Não conseguiu entrar' });
      await page.getByRole('button', { name: 'Filtrar' }).click();
      await page.locator('tbody tr', { hasText: 'não conseguiu entrar' }).waitFor();
      await page.locator('tbody tr', { hasText: 'entrou' }).waitFor({ state: 'detached' });
      expect((await rows(page)).map((row) => row.slice(1, 4))).toEqual([[ownerWords, 'não conseguiu entrar (senha errada)', '—']]);

      // By who, from those seen: the planner's one change.
      await page.getByLabel('Ação', { exact: true }).selectOption({ label: 'Qualquer ação' });
      await page.getByLabel('Quem', { exact: true }).selectOption({ label: plannerWords });
      await page.getByRole('button', { name: 'Filtrar' }).click();
      await page.locator('tbody tr', { hasText: `alterou o agendamento ${ref}` }).waitFor();
      const byPlanner = await rows(page);
      expect(byPlanner.map((row) => row[2])).toContain(`alterou o agendamento ${ref}`);
      expect(new Set(byPlanner.map((row) => row[1]))).toEqual(new Set([plannerWords]));
      expect(offending(await visibleTexts(page))).toEqual([]);
      await screenshot('audit-page-filtered-pt-BR');

      // The export: the dates' entries as CSV, downloaded with the session, the filtered entries among its rows.
      await page.getByLabel('Quem', { exact: true }).selectOption({ label: 'Qualquer um' });
      await page.getByLabel('De (data)').fill(dateInZone(-1));
      await page.getByLabel('Até (data, inclusive)').fill(dateInZone(0));
      await page.getByRole('button', { name: 'Filtrar' }).click();
      await page.locator('tbody tr', { hasText: 'criou o agendamento' }).waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Baixar CSV' }).click()]);
      expect(download.suggestedFilename()).toBe('audit.csv');
      const csv = readFileSync(await download.path(), 'utf8')
        .trim()
        .split('\n');
      expect(csv[0]).toBe(
        'seq,id,at,account_id,actor_type,actor_id,actor_name,actor_email,action,target_type,target_id,target_ref,changes,request_id,ip,user_agent,hash',
      );
      const about = (action: string, text: string) => csv.filter((line) => line.includes(`,${action},`) && line.includes(text));
      expect(about('appointment.created', ref)).toHaveLength(1);
      expect(about('appointment.updated', ref)).toHaveLength(1);
      expect(about('appointment.updated', ref)[0]).toContain(planner.email);
      expect(about('session.failed', owner.email)).toHaveLength(1);

      // The chain, verified over the same dates, in words.
      await page.getByRole('button', { name: 'Verificar a cadeia' }).click();
      const verdict = page.getByRole('status').filter({ hasText: 'A cadeia está íntegra' });
      await verdict.waitFor();
      expect(await verdict.textContent()).toMatch(/^A cadeia está íntegra: \d+ entradas verificadas\.$/);
      expect(offending(await visibleTexts(page))).toEqual([]);
      expect(await seriousA11yViolations(page)).toEqual([]);

      // The appointment's history names who made each entry.
      await page.getByRole('navigation').getByRole('button', { name: 'Agendamentos' }).click();
      await page.getByRole('button', { name: ref }).click();
      const history = page.getByRole('list', { name: `Histórico de ${ref}` });
      await history.locator('li[data-event="updated"]').getByText(`Feito por: ${plannerWords}`).waitFor();
      expect(await history.locator('li[data-event="created"]').textContent()).toMatch(/Feito por: (chave «.+»|uma chave de API)/);
      expect(offending(await visibleTexts(page))).toEqual([]);
      await screenshot('audit-history-who-pt-BR');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('an admin signed in with a key picks an account, reads its trail in English and exports it with the key', async () => {
    const terminal = await newTerminal(gate.http);
    await putLayout(gate.http, terminal.key, 'appointment', 'card');
    const [ref] = await createRecords(gate.http, terminal.key, 'appointment', [
      createItem('appointment', 'card', { ref: uniqueRef('ADM') }),
    ]);
    await sealed();

    const { page, context, problems } = await openPage(browser, DESKTOP);
    try {
      await signInToPanel(page, url, TEST_ADMIN_KEY);
      await page.getByRole('navigation').getByRole('button', { name: 'Audit' }).click();
      await page.getByLabel('Account', { exact: true }).selectOption({ label: `${terminal.name} · terminal` });
      await page.locator('tbody tr', { hasText: `created the appointment ${ref}` }).waitFor();
      expect(await page.locator('tbody tr', { hasText: `created the account ${terminal.name}` }).count()).toBe(1);

      // A key cannot ride on a link: the file is fetched with it and handed to the browser to save.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download NDJSON' }).click()]);
      const lines = readFileSync(await download.path(), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { account_id: string; action: string; target: { ref: string | null } });
      expect(new Set(lines.map((line) => line.account_id))).toEqual(new Set([terminal.id]));
      expect(lines.filter((line) => line.action === 'appointment.created' && line.target.ref === ref)).toHaveLength(1);
      expect(await seriousA11yViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
