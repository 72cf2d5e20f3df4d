import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { DataSource } from 'typeorm';
import { newAccount, newTerminal } from '../factories/accounts.js';
import { at, saveRule } from '../factories/capacity.js';
import { putLayout } from '../factories/layouts.js';
import { uniqueRef } from '../factories/records.js';
import { DESKTOP, launchBrowser, openPage, startWebApp, STORES } from '../setup/browser.js';
import { SERVICE_START_MS } from '../setup/processes.js';
import type { TestApp } from '../setup/test-app.js';

/** The Reports page in a real browser, in Portuguese: the scenario's figures, the carrier table and charts drawn. */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe.each(STORES)('the Reports page on %s', (storeName) => {
  let service: Awaited<ReturnType<typeof startWebApp>>;
  let gate: TestApp;
  let url: string;
  beforeAll(async () => {
    service = await startWebApp(storeName);
    ({ gate, url } = service);
  }, SERVICE_START_MS);
  afterAll(async () => {
    await service?.close();
  });

  it('shows a day of the gate in pt-BR: totals, the carrier table sorted, three charts drawn', async () => {
    const terminal = await newTerminal(gate.http);
    const carrierName = `Transportadora Veloz ${process.pid}`;
    const carrier = await newAccount(gate.http, 'carrier', { name: carrierName });
    await putLayout(gate.http, terminal.key, 'appointment', 'card');
    await saveRule(gate.http, terminal.key, 'hourly', {
      time_zone: 'America/Sao_Paulo',
      slot_minutes: 60,
      capacity: 4,
      bookable_by: [carrier.id],
    });
    const refs = [uniqueRef('R'), uniqueRef('R'), uniqueRef('R')];
    const booked = await gate.http
      .post(`/api/v1/terminals/${terminal.id}/bookings`)
      .set('X-API-Key', carrier.key)
      .send([
        at('card', '2030-03-10T12:00:00Z', { ref: refs[0], start_tolerance: 30 }),
        at('card', '2030-03-10T14:00:00Z', { ref: refs[1] }),
      ]);
    expect(booked.status).toBe(201);
    const created = await gate.http
      .post('/api/v1/appointments')
      .set('X-API-Key', terminal.key)
      .send(at('card', '2030-03-10T16:00:00Z', { ref: refs[2] }));
    expect(created.status).toBe(201);
    // The gate's stamps, as its reads write them: on time and 45 minutes inside; late; a no-show.
    const db = gate.app.get(DataSource);
    const stamp = (ref: string, set: string) =>
      db.query(`UPDATE appointments SET ${set} WHERE terminal_id = $1 AND ref = $2`, [terminal.id, ref]);
    await stamp(refs[0], `arrived_at = '2030-03-10T11:45:00Z', departed_at = '2030-03-10T12:30:00Z'`);
    await stamp(refs[1], `arrived_at = '2030-03-10T15:30:00Z'`);
    await stamp(refs[2], `no_show_at = '2030-03-10T17:01:00Z'`);

    const { page, context, problems, screenshot } = await openPage(browser, {
      ...DESKTOP,
      locale: 'pt-BR',
      timezoneId: 'America/Sao_Paulo',
    });
    try {
      await page.goto(`${url}/panel`);
      await page.getByRole('button', { name: 'Chave de API', exact: true }).click();
      await page.getByLabel('Chave de API').fill(terminal.key);
      await page.getByRole('button', { name: 'Entrar' }).click();
      await page.getByRole('navigation').getByRole('button', { name: 'Relatórios' }).click();
      await page.getByRole('heading', { name: 'Desempenho do portão' }).waitFor();
      await page.getByLabel('Fuso horário').selectOption('UTC');
      await page.getByLabel('De', { exact: true }).fill('2030-03-10');
      await page.getByLabel('Até', { exact: true }).fill('2030-03-10');
      await page.getByText('no horário de UTC').waitFor();

      const totals = page.locator('dl.report-totals');
      const figure = (name: string) => totals.locator('div', { has: page.getByText(name, { exact: true }) }).locator('dd');
      await figure('Agendamentos').getByText('3', { exact: true }).waitFor();
      expect(await figure('No horário').innerText()).toBe('1 (33,3%)');
      expect(await figure('Atrasados').innerText()).toBe('1 (33,3%)');
      expect(await figure('Não compareceram').innerText()).toBe('1 (33,3%)');
      expect(await figure('Tempo no terminal (mediana)').innerText()).toBe('45 min (90%: 45 min)');
      // 3 booked of 24 hourly slots of 4.
      expect(await figure('Ocupação').innerText()).toBe('3,1%');

      const rows = page.locator('table.report-table tbody tr');
      expect(await rows.count()).toBe(2);
      expect(await rows.nth(0).locator('th').innerText()).toBe(carrierName);
      expect(await rows.nth(0).locator('td').nth(0).innerText()).toBe('2');
      await page.getByRole('button', { name: 'Transportadora', exact: true }).click();
      expect(await page.locator('table.report-table thead th[aria-sort]').innerText()).toBe('Transportadora');
      expect(await rows.nth(0).locator('th').innerText()).toBe('Sem transportadora');

      // Three charts, each a canvas with its line's colour drawn on it.
      const charts = page.locator('figure.report-chart');
      expect(await charts.count()).toBe(3);
      // uPlot comes in a chunk of its own and draws on the next frame: wait until the three canvases hold coloured pixels.
      const drawnSoFar = `[...document.querySelectorAll('figure.report-chart canvas')].map((canvas) => {
        const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let coloured = 0;
        for (let i = 0; i < pixels.length; i += 4) if (pixels[i + 3] > 0 && (pixels[i] !== pixels[i + 1] || pixels[i + 1] !== pixels[i + 2])) coloured++;
        return { width: canvas.width, coloured };
      })`;
      await page.waitForFunction(`(${drawnSoFar}).filter((c) => c.coloured > 0).length === 3`);
      const drawn = await page.evaluate<{ width: number; coloured: number }[]>(drawnSoFar);
      expect(drawn).toHaveLength(3);
      for (const chart of drawn) {
        expect(chart.width).toBeGreaterThan(0);
        expect(chart.coloured).toBeGreaterThan(0);
      }
      await screenshot(`${storeName}-reports-pt-BR`);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
