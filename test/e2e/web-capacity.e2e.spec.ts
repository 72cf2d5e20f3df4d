import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { newAccount, newCarrier, newTerminal, type TestAccount } from '../factories/accounts.js';
import { at, saveRule, slotsOf } from '../factories/capacity.js';
import { CARD_LAYOUT, putLayout } from '../factories/layouts.js';
import { createRecords, driver, uniqueRef } from '../factories/records.js';
import {
  DESKTOP,
  launchBrowser,
  openPage,
  PHONE,
  postgresqlOnly,
  seriousA11yViolations,
  signInToPanel,
  startWebApp,
  STORES,
  type Store,
} from '../setup/browser.js';
import { SERVICE_START_MS } from '../setup/processes.js';
import type { TestApp } from '../setup/test-app.js';

/**
 * Capacity in the web panel, in a real browser, on PostgreSQL: a terminal's rule editor and week calendar, a carrier's
 * booking of free slots and its bookings; the calendar on the embedded store too.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** The codes of the service that a person must never read on the page. */
const CODES = [
  'SCHEDULED',
  'DELETED',
  'SLOT_FULL',
  'SLOT_CLOSED',
  'QUOTA_EXCEEDED',
  'FORBIDDEN',
  'DUPLICATE_KEY',
  'VALIDATION_ERROR',
  'REFS_NOT_FOUND',
];
const codesShown = async (page: Page) => {
  const text = await page.locator('body').innerText();
  return CODES.filter((code) => text.includes(code));
};
const pageOverflows = async (page: Page) => {
  const { scroll, client } = await page.evaluate<{ scroll: number; client: number }>(
    '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
  );
  return scroll > client;
};
/** The grid's cells that hold a slot, by the slot's start: their text and whether they are shaded closed or marked full. */
const cellsOf = async (page: Page) =>
  page.locator('table.week-grid td[data-start]').evaluateAll((cells) =>
    cells.map((cell) => ({
      start: cell.getAttribute('data-start')!,
      count: cell.querySelector('.count')?.textContent ?? null,
      closed: cell.classList.contains('closed'),
      full: cell.classList.contains('full'),
      text: cell.textContent ?? '',
    })),
  );
/** The row headers of the grid, top to bottom, and for one day's column the start of the slot in each row (null: none). */
const columnOf = async (page: Page, day: string) =>
  page.locator('table.week-grid').evaluate((table, day) => {
    const headers = [...table.querySelectorAll('thead th')].map((th) => th.getAttribute('data-day'));
    const column = headers.indexOf(day);
    return [...table.querySelectorAll('tbody tr')].map((row) => ({
      time: row.querySelector('th')!.textContent,
      start: row.children[column]?.getAttribute('data-start') ?? null,
    }));
  }, day);

describe.each(STORES)('capacity in the web panel on %s', (storeName: Store) => {
  const onPostgresql = postgresqlOnly(storeName);
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

  const rule = async (terminal: TestAccount, ref: string) => gate.http.get(`/api/v1/capacity/${ref}`).set('X-API-Key', terminal.key);

  onPostgresql(
    'edits a rule in Spanish: open hours, an exception on the rule clock and a carrier saved; refusals shown at their fields',
    async () => {
      const terminal = await newTerminal(gate.http);
      const carrier = await newAccount(gate.http, 'carrier', { name: `Transportes Rápidos ${process.pid}` });
      await putLayout(gate.http, terminal.key, 'appointment', 'recogida', { ...CARD_LAYOUT, name: 'Recogida' });
      await putLayout(gate.http, terminal.key, 'appointment', 'entrega');
      const { page, context, problems, screenshot } = await openPage(browser, { ...DESKTOP, locale: 'es-ES', timezoneId: 'Asia/Tokyo' });
      try {
        await page.goto(`${url}/panel`);
        await page.getByRole('button', { name: 'Clave de API', exact: true }).click();
        await page.getByLabel('Clave de API').fill(terminal.key);
        await page.getByRole('button', { name: 'Entrar' }).click();
        await page.getByRole('navigation').getByRole('button', { name: 'Capacidad' }).click();
        await page.getByText('Aún no hay reglas de capacidad').waitFor();
        await page.getByRole('button', { name: 'Nueva regla' }).click();

        await page.getByLabel('Referencia de la regla').fill('puerta-a');
        await page.getByLabel('Nombre', { exact: true }).fill('Puerta A');
        await page.getByLabel('Recogida (recogida)').check();
        await page.getByLabel('Zona horaria').fill('America/Sao_Paulo');
        await page.getByLabel('Duración del turno (minutos)').fill('60');
        await page.getByLabel('Citas por turno').fill('4');
        await page.getByLabel('Siempre abierto').uncheck();
        const hours = (n: number) => page.getByRole('group', { name: `Horario ${n}`, exact: true });
        // Weekdays from 08:00 come prefilled; "to" earlier than "from" is refused by the service at that field.
        await hours(1).getByLabel('Hasta').fill('07:00');
        await page.getByRole('button', { name: 'Añadir horario' }).click();
        for (const day of ['lunes', 'martes', 'miércoles', 'jueves', 'viernes']) await hours(2).getByLabel(day).uncheck();
        await hours(2).getByLabel('sábado').check();
        await hours(2).getByLabel('Hasta').fill('12:00');
        await page.getByRole('button', { name: 'Añadir excepción' }).click();
        const exception = page.getByRole('group', { name: 'Excepción 1', exact: true });
        await exception.getByLabel('Desde').fill('2027-12-24T12:00');
        await exception.getByLabel('Hasta').fill('2027-12-26T00:00');
        await exception.getByLabel('Capacidad (0 cierra)').fill('0');
        // A carrier is named by the id it gives the terminal; an id that is no carrier's is said so at once.
        const carrierId = page.getByLabel('Id de la cuenta del transportista');
        await carrierId.fill(carrier.id);
        await page.getByRole('button', { name: 'Añadir transportista' }).click();
        await page.getByText(`Transportes Rápidos ${process.pid}`).waitFor();
        const unknown = '00000000-0000-4000-8000-000000000000';
        await carrierId.fill(unknown);
        await carrierId.press('Enter');
        await page.locator('.carriers li', { hasText: unknown }).getByText('No es una cuenta de transportista').waitFor();
        await page.getByLabel('Cuota por transportista').fill('0.5');
        await page.getByRole('button', { name: 'Guardar regla' }).click();

        await page.getByRole('alert').filter({ hasText: 'La regla no se guardó' }).waitFor();
        const to = hours(1).getByLabel('Hasta');
        expect(await to.getAttribute('aria-invalid')).toBe('true');
        const toProblem = page.locator(`#${await to.getAttribute('aria-describedby')}`);
        expect(await toProblem.innerText()).toContain('later than from');
        expect(await hours(1).getByLabel('Desde').getAttribute('aria-invalid')).toBeNull();
        expect(await seriousA11yViolations(page)).toEqual([]);
        await screenshot(`${storeName}-capacity-rule-refused-es`);

        // Once the hours are right, the service names the id that is no carrier's, at its place in the list.
        await to.fill('17:00');
        await page.getByRole('button', { name: 'Guardar regla' }).click();
        await page
          .locator('.carriers li', { hasText: unknown })
          .getByRole('alert')
          .filter({ hasText: 'is not a carrier account' })
          .waitFor();
        expect(await to.getAttribute('aria-invalid')).toBeNull();
        expect((await rule(terminal, 'puerta-a')).status).toBe(404);

        await page.getByRole('button', { name: `Quitar ${unknown}` }).click();
        await page.getByRole('button', { name: 'Guardar regla' }).click();
        await page.getByRole('status').filter({ hasText: 'Guardado.' }).waitFor();
        const saved = (await rule(terminal, 'puerta-a')).body.data;
        expect(saved).toMatchObject({
          rule_ref: 'puerta-a',
          name: 'Puerta A',
          layout_refs: ['recogida'],
          time_zone: 'America/Sao_Paulo',
          slot_minutes: 60,
          capacity: 4,
          open_hours: [
            { days: [1, 2, 3, 4, 5], from: '08:00', to: '17:00' },
            { days: [6], from: '08:00', to: '12:00' },
          ],
          // Local times of São Paulo (UTC−3), whatever the device's zone (Tokyo).
          exceptions: [{ from: '2027-12-24T15:00:00.000Z', to: '2027-12-26T03:00:00.000Z', capacity: 0 }],
          bookable_by: [carrier.id],
          carrier_quota: 0.5,
        });

        // Listed, and opened again with the exception on the rule's clock.
        await page.getByRole('button', { name: 'Volver a la lista' }).click();
        const row = page.locator('tbody tr', { hasText: 'puerta-a' });
        await row.getByText('60 min, 4 por turno').waitFor();
        await row.getByText('1 transportista').waitFor();
        await row.getByRole('button', { name: 'Editar puerta-a' }).click();
        expect(await page.getByRole('group', { name: 'Excepción 1', exact: true }).getByLabel('Desde').inputValue()).toBe(
          '2027-12-24T12:00',
        );
        await page.getByText(`Transportes Rápidos ${process.pid}`).waitFor();
        expect(await codesShown(page)).toEqual([]);
        await screenshot(`${storeName}-capacity-rule-editor-es`);

        // Deleted after a confirmation.
        await page.getByRole('button', { name: 'Volver a la lista' }).click();
        await row.getByRole('button', { name: 'Eliminar la regla puerta-a' }).click();
        await row.getByRole('button', { name: 'Sí, eliminar puerta-a' }).click();
        await page.getByRole('status').filter({ hasText: 'Regla puerta-a eliminada' }).waitFor();
        expect((await rule(terminal, 'puerta-a')).status).toBe(404);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );

  it("draws a rule's week as availability answers it, on the rule's clock: booked of capacity, closed shaded, full marked, live", async () => {
    const terminal = await newTerminal(gate.http);
    await putLayout(gate.http, terminal.key, 'appointment', 'pickup');
    await saveRule(gate.http, terminal.key, 'gate', {
      name: 'Gate A',
      time_zone: 'America/Sao_Paulo',
      slot_minutes: 60,
      capacity: 2,
      open_hours: [{ days: [1, 2, 3, 4, 5], from: '08:00', to: '18:00' }],
      // Wednesday 17 March 2027 closed all day (a strike).
      exceptions: [{ from: '2027-03-17T00:00:00-03:00', to: '2027-03-18T00:00:00-03:00', capacity: 0 }],
    });
    await createRecords(gate.http, terminal.key, 'appointment', [
      at('pickup', '2027-03-15T09:00:00-03:00'),
      at('pickup', '2027-03-16T10:00:00-03:00'),
      at('pickup', '2027-03-16T10:30:00-03:00'),
    ]);
    const { page, context, problems, screenshot } = await openPage(browser, { ...DESKTOP, timezoneId: 'Europe/Lisbon' });
    try {
      await signInToPanel(page, url, terminal.key);
      await page.getByRole('navigation').getByRole('button', { name: 'Capacity' }).click();
      await page.getByRole('button', { name: 'Calendar of gate' }).click();
      await page.getByLabel('Go to the week of').fill('2027-03-17');
      const grid = page.locator('table.week-grid');
      await grid.locator('caption', { hasText: 'times in America/Sao_Paulo' }).waitFor();
      expect(await grid.locator('caption').innerText()).toContain('Gate A (gate): week of Mar 15 to Mar 21');
      await page.getByText('Days and times are on the clock of America/Sao_Paulo').waitFor();
      await grid.locator('td[data-start="2027-03-15T12:00:00.000Z"]').waitFor();

      // Exactly the slots the service answers for that week (São Paulo's Monday midnight to the next).
      const slots = await slotsOf(gate.http, terminal.key, 'gate', '2027-03-15T03:00:00Z', '2027-03-22T03:00:00Z');
      expect(slots).toHaveLength(7 * 24);
      const cells = await cellsOf(page);
      expect(cells.map((cell) => cell.start).sort()).toEqual(slots.map((slot) => slot.start));
      const cell = (start: string) => cells.find((c) => c.start === start)!;
      // Monday 09:00 in São Paulo (12:00 UTC): one of two booked.
      expect(cell('2027-03-15T12:00:00.000Z')).toMatchObject({ count: '1/2', closed: false, full: false });
      // Tuesday 10:00: full.
      expect(cell('2027-03-16T13:00:00.000Z')).toMatchObject({ count: '2/2', full: true });
      expect(cell('2027-03-16T13:00:00.000Z').text).toContain('Full');
      // The strike's Wednesday and the hours outside open hours are shaded closed.
      expect(cell('2027-03-17T13:00:00.000Z')).toMatchObject({ count: '0/0', closed: true });
      expect(cell('2027-03-17T13:00:00.000Z').text).toContain('Closed');
      expect(cell('2027-03-15T10:00:00.000Z')).toMatchObject({ closed: true });
      expect(cell('2027-03-20T12:00:00.000Z')).toMatchObject({ closed: true });
      for (const slot of slots) expect(cell(slot.start).closed).toBe(!slot.open);
      // The rows are São Paulo's clock: Monday 09:00 is the row of 09:00.
      expect((await columnOf(page, '2027-03-15')).find((row) => row.start === '2027-03-15T12:00:00.000Z')?.time).toBe('09:00');
      expect(await seriousA11yViolations(page)).toEqual([]);
      expect(await grid.locator('thead th[scope="col"]').count()).toBe(8);
      expect(await grid.locator('tbody th[scope="row"]').count()).toBe(24);
      await screenshot(`${storeName}-capacity-calendar`);

      // An appointment created through the API shows at once, from the event feed.
      await createRecords(gate.http, terminal.key, 'appointment', [at('pickup', '2027-03-15T09:45:00-03:00')]);
      const monday = grid.locator('td[data-start="2027-03-15T12:00:00.000Z"]');
      await monday.locator('.count', { hasText: '2/2' }).waitFor();
      expect(await monday.getAttribute('class')).toContain('full');

      // Week navigation: the week after has nothing booked.
      await page.getByRole('button', { name: 'Next week' }).click();
      await grid.locator('td[data-start="2027-03-22T12:00:00.000Z"] .count', { hasText: '0/2' }).waitFor();
      expect(await codesShown(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  onPostgresql('draws daylight-saving weeks as the service cuts them: a skipped hour has no slot, a repeated one two', async () => {
    const terminal = await newTerminal(gate.http);
    await putLayout(gate.http, terminal.key, 'appointment', 'pickup');
    await saveRule(gate.http, terminal.key, 'berlin', { time_zone: 'Europe/Berlin', slot_minutes: 60, capacity: 3 });
    // On 31 October 2027 Berlin's clock shows 02:00–03:00 twice: one appointment in the second of them.
    await createRecords(gate.http, terminal.key, 'appointment', [at('pickup', '2027-10-31T01:30:00Z')]);
    const { page, context, problems, screenshot } = await openPage(browser, { ...DESKTOP, timezoneId: 'America/New_York' });
    try {
      await signInToPanel(page, url, terminal.key);
      await page.getByRole('navigation').getByRole('button', { name: 'Capacity' }).click();
      await page.getByRole('button', { name: 'Calendar of berlin' }).click();
      const grid = page.locator('table.week-grid');

      // Spring: Sunday 28 March 2027 goes from 02:00 to 03:00.
      await page.getByLabel('Go to the week of').fill('2027-03-24');
      await grid.locator('td[data-start="2027-03-27T23:00:00.000Z"]').waitFor();
      const spring = await slotsOf(gate.http, terminal.key, 'berlin', '2027-03-21T23:00:00Z', '2027-03-28T22:00:00Z');
      expect(spring).toHaveLength(6 * 24 + 23);
      expect((await cellsOf(page)).map((cell) => cell.start).sort()).toEqual(spring.map((slot) => slot.start));
      const sunday = await columnOf(page, '2027-03-28');
      expect(sunday.map((row) => row.time)).toEqual(Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`));
      expect(sunday.find((row) => row.time === '02:00')!.start).toBeNull();
      expect(sunday.find((row) => row.time === '01:00')!.start).toBe('2027-03-28T00:00:00.000Z');
      expect(sunday.find((row) => row.time === '03:00')!.start).toBe('2027-03-28T01:00:00.000Z');
      expect((await columnOf(page, '2027-03-27')).find((row) => row.time === '02:00')!.start).toBe('2027-03-27T01:00:00.000Z');
      await screenshot(`${storeName}-capacity-calendar-spring`);

      // Autumn: Sunday 31 October 2027 shows 02:00 twice, a row of its own for the second.
      await page.getByLabel('Go to the week of').fill('2027-10-27');
      await grid.locator('td[data-start="2027-10-24T22:00:00.000Z"]').waitFor();
      const autumn = await slotsOf(gate.http, terminal.key, 'berlin', '2027-10-24T22:00:00Z', '2027-10-31T23:00:00Z');
      expect(autumn).toHaveLength(6 * 24 + 25);
      expect((await cellsOf(page)).map((cell) => cell.start).sort()).toEqual(autumn.map((slot) => slot.start));
      const fall = await columnOf(page, '2027-10-31');
      expect(fall.slice(1, 5)).toEqual([
        { time: '01:00', start: '2027-10-30T23:00:00.000Z' },
        { time: '02:00', start: '2027-10-31T00:00:00.000Z' },
        { time: '02:00 again (the clock went back)', start: '2027-10-31T01:00:00.000Z' },
        { time: '03:00', start: '2027-10-31T02:00:00.000Z' },
      ]);
      expect((await columnOf(page, '2027-10-30')).find((row) => row.time?.includes('again'))!.start).toBeNull();
      const second = grid.locator('td[data-start="2027-10-31T01:00:00.000Z"] .count');
      expect(await second.innerText()).toBe('1/3');
      expect(await grid.locator('td[data-start="2027-10-31T00:00:00.000Z"] .count').innerText()).toBe('0/3');
      await screenshot(`${storeName}-capacity-calendar-autumn`);
      expect(await seriousA11yViolations(page)).toEqual([]);

      // Half-hour slots: the repeated hour's two times come again, in the order the clock shows them.
      await saveRule(gate.http, terminal.key, 'berlin-30', { time_zone: 'Europe/Berlin', slot_minutes: 30, capacity: 3 });
      await page.getByRole('button', { name: 'Back to the list' }).click();
      await page.getByRole('button', { name: 'Calendar of berlin-30' }).click();
      await page.getByLabel('Go to the week of').fill('2027-10-27');
      await grid.locator('td[data-start="2027-10-31T01:30:00.000Z"]').waitFor();
      expect((await columnOf(page, '2027-10-31')).slice(3, 9)).toEqual([
        { time: '01:30', start: '2027-10-30T23:30:00.000Z' },
        { time: '02:00', start: '2027-10-31T00:00:00.000Z' },
        { time: '02:30', start: '2027-10-31T00:30:00.000Z' },
        { time: '02:00 again (the clock went back)', start: '2027-10-31T01:00:00.000Z' },
        { time: '02:30 again (the clock went back)', start: '2027-10-31T01:30:00.000Z' },
        { time: '03:00', start: '2027-10-31T02:00:00.000Z' },
      ]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  onPostgresql('lets a carrier book a free slot in Portuguese on a phone, refusals in words, then see and cancel the booking', async () => {
    const terminalName = `Terminal Santos ${process.pid}`;
    const terminal = await newAccount(gate.http, 'terminal', { name: terminalName });
    const carrier = await newCarrier(gate.http);
    await putLayout(gate.http, terminal.key, 'appointment', 'retirada', { ...CARD_LAYOUT, name: 'Retirada' });
    await saveRule(gate.http, terminal.key, 'portao', {
      name: 'Portão 1',
      time_zone: 'America/Sao_Paulo',
      slot_minutes: 60,
      capacity: 2,
      open_hours: [{ days: [1, 2, 3, 4, 5], from: '06:00', to: '22:00' }],
      bookable_by: [carrier.id],
      carrier_quota: 0.5,
    });
    const ref = uniqueRef('FF');
    const { page, context, problems, screenshot } = await openPage(browser, { ...PHONE, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    try {
      await page.goto(`${url}/panel`);
      await page.getByRole('button', { name: 'Chave de API', exact: true }).click();
      await page.getByLabel('Chave de API').fill(carrier.key);
      await page.getByRole('button', { name: 'Entrar' }).click();
      await page.getByRole('navigation').getByRole('button', { name: 'Reservar horários' }).click();
      expect(await page.getByLabel('Terminal').locator('option:checked').innerText()).toBe(terminalName);
      await page.getByLabel('Ir para a semana de').fill('2027-03-17');
      const grid = page.locator('table.week-grid');
      const slot = (start: string) => grid.locator(`td[data-start="${start}"]`);
      await slot('2027-03-16T13:00:00.000Z').getByRole('button').waitFor();
      expect(await pageOverflows(page)).toBe(false);

      // Tuesday 10:00 in São Paulo: the form, the driver and the appointment.
      await slot('2027-03-16T13:00:00.000Z')
        .getByRole('button', { name: /^10:00 · 1 livre\W+reservar terça-feira, 16 de março de 2027/ })
        .click();
      const form = page.locator('form.booking-form');
      await form.getByLabel('CPF do motorista').fill('12345678901');
      await form.getByLabel('Número da CNH').fill('SP-998877');
      await form.getByLabel('Categoria da CNH').fill('E');
      await form.getByLabel('Referência').fill(ref);
      await form.getByLabel('Placa').fill('ABC1D23');
      await form.getByLabel('Resumo').fill('Contêiner MSCU1234567');
      expect(await seriousA11yViolations(page)).toEqual([]);
      await form.getByRole('button', { name: 'Reservar', exact: true }).click();
      await form
        .getByRole('status')
        .filter({ hasText: `${ref} reservado para` })
        .waitFor();
      // Its share of that slot (1 of 2) is now taken.
      await slot('2027-03-16T13:00:00.000Z').getByText('Cota usada').waitFor();
      const booked = await gate.http.get('/api/v1/appointments/logs').query({ refs: ref }).set('X-API-Key', terminal.key);
      expect(booked.body.data[0].data.appointment).toMatchObject({
        layout_ref: 'retirada',
        status: 'SCHEDULED',
        window_start: '2027-03-16T13:00:00.000Z',
        window_end: '2027-03-16T14:00:00.000Z',
        license_plate: 'ABC1D23',
        summary: 'Contêiner MSCU1234567',
        booked_by: { carrier_id: carrier.id },
      });
      expect(booked.body.data[0].data.driver).toMatchObject({ tax_id: '12345678901', driver_license_number: 'SP-998877' });
      await screenshot(`${storeName}-capacity-booked-pt-BR`);

      // A slot chosen, then taken meanwhile: by the carrier itself elsewhere (its quota), or filled by the terminal.
      await slot('2027-03-16T14:00:00.000Z').getByRole('button').click();
      const other = `${ref}-X`;
      const elsewhere = await gate.http
        .post(`/api/v1/terminals/${terminal.id}/bookings`)
        .set('X-API-Key', carrier.key)
        .send(at('retirada', '2027-03-16T11:00:00-03:00', { ref: other }, driver()));
      expect(elsewhere.status).toBe(201);
      await form.getByLabel('CPF do motorista').fill('12345678901');
      await form.getByLabel('Número da CNH').fill('SP-998877');
      await form.getByLabel('Categoria da CNH').fill('E');
      await form.getByLabel('Referência').fill(uniqueRef('FF'));
      await form.getByRole('button', { name: 'Reservar', exact: true }).click();
      await form
        .getByRole('alert')
        .filter({ hasText: 'Não reservado: você já tem 1 das 1 vagas que o terminal permite a uma transportadora no horário de' })
        .waitFor();

      await slot('2027-03-16T15:00:00.000Z').getByRole('button').click();
      await createRecords(gate.http, terminal.key, 'appointment', [
        at('retirada', '2027-03-16T12:00:00-03:00'),
        at('retirada', '2027-03-16T12:10:00-03:00'),
      ]);
      await form.getByLabel('CPF do motorista').fill('12345678901');
      await form.getByLabel('Número da CNH').fill('SP-998877');
      await form.getByLabel('Categoria da CNH').fill('E');
      await form.getByLabel('Referência').fill(uniqueRef('FF'));
      await form.getByRole('button', { name: 'Reservar', exact: true }).click();
      await form.getByRole('alert').filter({ hasText: 'está lotado (2 de 2 vagas ocupadas). Escolha outro horário.' }).waitFor();
      // The same ref again is the terminal's already.
      await form.getByLabel('Referência').fill(ref);
      await form.getByRole('button', { name: 'Reservar', exact: true }).click();
      await form
        .getByRole('alert')
        .filter({ hasText: `A referência ${ref} já é usada neste terminal` })
        .waitFor();
      expect(await codesShown(page)).toEqual([]);
      expect(await pageOverflows(page)).toBe(false);
      await screenshot(`${storeName}-capacity-refused-pt-BR`);

      // The bookings: listed, then cancelled after a confirmation.
      await page.getByRole('navigation').getByRole('button', { name: 'Reservas' }).click();
      await page.locator(`tbody tr[data-ref="${other}"]`).waitFor();
      // Filtered to one ref: the other booking goes.
      await page.getByLabel('Referência começa com').fill(`${ref}-`);
      await page.getByRole('button', { name: 'Aplicar filtros' }).click();
      await page.locator(`tbody tr[data-ref="${ref}"]`).waitFor({ state: 'detached' });
      await page.locator(`tbody tr[data-ref="${other}"]`).waitFor();
      await page.getByLabel('Referência começa com').fill(ref);
      await page.getByRole('button', { name: 'Aplicar filtros' }).click();
      const row = page.locator(`tbody tr[data-ref="${ref}"]`);
      await row.getByText('Agendado', { exact: true }).waitFor();
      await row.getByText(terminalName).waitFor();
      await row.getByRole('button', { name: `Cancelar reserva ${ref}` }).click();
      await row.getByRole('button', { name: `Sim, cancelar ${ref}` }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Reserva ${ref} em ${terminalName} cancelada.` })
        .waitFor();
      // Cancelled bookings are hidden unless their status is ticked.
      await row.waitFor({ state: 'detached' });
      await page.getByRole('group', { name: 'Situação' }).getByLabel('Excluído').check();
      await page.getByRole('button', { name: 'Aplicar filtros' }).click();
      await row.getByText('Excluído', { exact: true }).waitFor();
      const cancelled = await gate.http.get('/api/v1/appointments/logs').query({ refs: ref }).set('X-API-Key', terminal.key);
      expect(cancelled.body.data[0].data.appointment.status).toBe('DELETED');
      expect(await codesShown(page)).toEqual([]);
      expect(await pageOverflows(page)).toBe(false);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await screenshot(`${storeName}-capacity-bookings-pt-BR`);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
