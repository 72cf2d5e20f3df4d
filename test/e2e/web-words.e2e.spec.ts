import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { newAccount, newCarrier, type TestAccount } from '../factories/accounts.js';
import { at, saveRule } from '../factories/capacity.js';
import { TERMINAL_FENCE } from '../factories/checkin.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, driver, uniqueRef } from '../factories/records.js';
import { connectTerminal } from '../factories/sockets.js';
import { launchBrowser, openPage, PHONE, startWebApp } from '../setup/browser.js';
import { SERVICE_START_MS } from '../setup/processes.js';
import { offending, visibleTexts } from '../setup/words.js';
import type { TestApp } from '../setup/test-app.js';

/**
 * What people read on the pages in Portuguese (Brazil), at a phone's width and a desk's: every visible text node of the
 * driver app with a ticket on screen and of the panel with an appointment's history open, with no English word, no ISO
 * timestamp, no UUID and no unformatted CPF. The partner's own texts are Portuguese here (layouts with Portuguese
 * labels), as a Brazilian terminal writes them.
 */
let gate: TestApp;
let url: string;
let browser: Browser;
let service: Awaited<ReturnType<typeof startWebApp>>;

beforeAll(async () => {
  browser = await launchBrowser();
  service = await startWebApp('postgresql');
  ({ gate, url } = service);
}, SERVICE_START_MS);
afterAll(async () => {
  await service?.close();
  await browser?.close();
});

let cpfs = 0;
/** An 11-digit tax id of its own (a CPF's shape). */
const uniqueCpf = () => `${String(process.pid).padStart(7, '0').slice(-7)}${String(++cpfs).padStart(4, '0')}`;

/** A Brazilian terminal: its layouts in Portuguese, a gate geofence, and a driver with two appointments and a link. */
async function brazilianTerminal() {
  const terminal: TestAccount = await newAccount(gate.http, 'terminal', { name: 'Terminal Santos Brasil', location: TERMINAL_FENCE });
  await putLayout(gate.http, terminal.key, 'appointment', 'retirada', {
    name: 'Retirada de contêiner',
    card_layout: [
      { type: 'section', title: 'Retirada' },
      { type: 'field', label: 'Motorista', path: 'driver.tax_id' },
      { type: 'field', label: 'Início', path: 'appointment.window_start' },
      { type: 'qrcode', path: 'appointment.ref' },
    ],
    modal_layout: [{ type: 'field', label: 'Contêiner', path: 'custom_data.container.number' }],
  });
  await putLayout(gate.http, terminal.key, 'ticket', 'passe', {
    name: 'Passe de portão',
    elements: [
      { type: 'section', title: 'Portão' },
      { type: 'highlight', label: 'Portão', path: 'content.gate' },
      { type: 'field', label: 'Doca', path: 'content.doca' },
      { type: 'attention', text: 'Pare primeiro na balança', icon: 'scale' },
      { type: 'instruction', steps: ['Siga até a doca', 'Aguarde a liberação'] },
    ],
  });
  const taxId = uniqueCpf();
  const now = Date.now();
  const appointment = async (plate: string) => {
    const item = createItem(
      'appointment',
      'retirada',
      {
        ref: uniqueRef('AG'),
        license_plate: plate,
        summary: 'Retirada do contêiner MSCU1234567',
        window_start: new Date(now - 30 * 60_000).toISOString(),
        window_end: new Date(now + 30 * 60_000).toISOString(),
      },
      // A licence as a CNH's registration is written by the state (the factory's own is the tax id's digits).
      driver(taxId, { driver_license_number: 'SP-482913' }),
    );
    const res = await gate.http.post('/api/v1/appointments').set('X-API-Key', terminal.key).send(item);
    expect(res.status).toBe(201);
    return res.body.data.created_refs[0] as string;
  };
  const accepted = await appointment('ABC1D23');
  const refused = await appointment('REJ1A23');
  const socket = await connectTerminal(url, terminal.key, (request) => {
    const { license_plate } = (request as { appointment: { license_plate: string } }).appointment;
    return license_plate === 'REJ1A23'
      ? { accepted: false, reason: 'Placa não autorizada neste portão.' }
      : { accepted: true, tickets: [{ layout_ref: 'passe', content: { gate: 'A3', doca: 4 } }] };
  });
  const token = (await gate.http.post(`/api/v1/drivers/${taxId}/tokens`).set('X-API-Key', terminal.key)).body.data.token as string;
  return { terminal, taxId, accepted, refused, socket, token };
}

describe('every word in Portuguese (Brazil)', () => {
  it('the phone with a ticket and the panel with an appointment history, at 390 px and 1280 px', async () => {
    const scene = await brazilianTerminal();
    const phone = await openPage(browser, { ...PHONE, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    try {
      const { page } = phone;
      await page.goto(`${url}/app#token=${scene.token}`);
      await page.getByRole('status').filter({ hasText: 'Ao vivo' }).waitFor();
      expect(await page.title()).toBe('App do motorista — Portão');

      const refused = page.getByRole('article', { name: scene.refused });
      await refused.getByRole('button', { name: 'Fazer check-in' }).click();
      const refusal = refused.getByRole('alert');
      await refusal.filter({ hasText: 'O terminal recusou o check-in: Placa não autorizada neste portão. ' }).waitFor();

      await page.getByRole('article', { name: scene.accepted }).getByRole('button', { name: 'Fazer check-in' }).click();
      const ticket = page.getByRole('article', { name: `Ticket de ${scene.accepted}` });
      await ticket.getByText('Pare primeiro na balança').waitFor();
      // The tax id on the card is a CPF, grouped; the window's start a date in Portuguese, not ISO.
      const cpf = scene.taxId.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4');
      await page.getByText(cpf).first().waitFor();

      // The header keeps "Ao vivo" on one line and the language switch whole.
      const header = await page.evaluate<{ liveLines: number; selectFits: boolean }>(`(() => {
        const live = document.querySelector('.connection');
        const select = document.querySelector('.app-bar select');
        const probe = document.createElement('span');
        probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap;font:' + getComputedStyle(select).font;
        probe.textContent = select.selectedOptions[0].textContent;
        document.body.append(probe);
        const needed = probe.getBoundingClientRect().width;
        probe.remove();
        const lineHeight = parseFloat(getComputedStyle(live).lineHeight) || 16;
        return { liveLines: Math.round((live.getBoundingClientRect().height - 4) / lineHeight), selectFits: select.clientWidth >= needed + 16 };
      })()`);
      expect(header).toEqual({ liveLines: 1, selectFits: true });

      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await phone.screenshot(`words-app-pt-BR-${width}`);
        const texts = await visibleTexts(page);
        expect(texts).toEqual(
          expect.arrayContaining([
            'Pare primeiro na balança',
            'O terminal recusou o check-in: Placa não autorizada neste portão. Procure o escritório do portão.',
          ]),
        );
        expect(offending(texts)).toEqual([]);
      }
      expect(phone.problems).toEqual([]);
    } finally {
      await phone.context.close();
    }

    // The checked-in appointment changes: a new plate (an update), then under way (a status change).
    const put = (appointment: object) =>
      gate.http.put('/api/v1/appointments').set('X-API-Key', scene.terminal.key).send({ ref: scene.accepted, appointment });
    expect((await put({ license_plate: 'ABC1D24' })).status).toBe(200);
    expect((await put({ status: 'ON_GOING' })).status).toBe(200);
    // Every entry carries its facts, from which the panel draws it.
    const logged = (await gate.http.get('/api/v1/appointments/logs').query({ refs: scene.accepted }).set('X-API-Key', scene.terminal.key))
      .body.data[0].data.logs as { event: string; data: unknown }[];
    expect(logged.map((entry) => entry.event)).toEqual([
      'on_going',
      'updated',
      'ticket_created',
      'checked_in',
      'checkin_requested',
      'created',
    ]);
    expect(logged.filter((entry) => entry.data === null)).toEqual([]);

    const desk = await openPage(browser, { viewport: { width: 1280, height: 900 }, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    try {
      const { page } = desk;
      await page.goto(`${url}/panel`);
      await page.getByRole('button', { name: 'Chave de API', exact: true }).click();
      await page.getByLabel('Chave de API').fill(scene.terminal.key);
      expect(await page.title()).toBe('Painel do portão');
      await page.getByRole('button', { name: 'Entrar' }).click();
      for (const ref of [scene.refused, scene.accepted]) {
        await page.locator('tbody tr', { hasText: ref }).getByRole('button', { name: ref }).click();
        const history = page.getByRole('list', { name: `Histórico de ${ref}` });
        await history.locator('li[data-event="created"]').getByText('Agendamento criado').waitFor();
        if (ref === scene.accepted) {
          await history.getByText('Ticket criado (layout Passe de portão)').waitFor();
          await history.getByText('Check-in aceito pelo servidor do terminal').waitFor();
          await history.getByText('Check-in solicitado pelo motorista').first().waitFor();
          await history.getByText('Alterado: placa').waitFor();
          await history.locator('li[data-event="on_going"]').getByText('Check-in feito → Em andamento').waitFor();
        } else {
          await history.getByText('O terminal recusou o check-in: Placa não autorizada neste portão.').waitFor();
        }
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 900 });
          await desk.screenshot(`words-panel-history-pt-BR-${width}-${ref === scene.accepted ? 'accepted' : 'refused'}`);
          const texts = await visibleTexts(page);
          expect(texts).toEqual(expect.arrayContaining(['Retirada de contêiner']));
          expect(offending(texts)).toEqual([]);
        }
        await page.setViewportSize({ width: 1280, height: 900 });
      }

      // The layout editor's sample values, taken from a record, as people read them: the window's start a date in
      // Portuguese, the tax id a CPF.
      await page.getByRole('navigation').getByRole('button', { name: 'Layouts' }).click();
      await page.getByRole('button', { name: 'Editar retirada' }).click();
      const values = page.getByRole('definition');
      await values
        .filter({ hasText: scene.taxId.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4') })
        .first()
        .waitFor();
      await values
        .filter({ hasText: /\d{1,2} de [a-z]+\.? de \d{4}/ })
        .first()
        .waitFor();
      await desk.screenshot('words-panel-layout-sample-pt-BR');
      expect(offending(await visibleTexts(page))).toEqual([]);
      expect(desk.problems).toEqual([]);
    } finally {
      await desk.context.close();
      scene.socket.close();
    }
  });
});

describe('appointments planned in the panel', () => {
  it('are created, changed and cancelled by the terminal, with problems in words at their fields; deleted ones are hidden', async () => {
    const terminal = await newAccount(gate.http, 'terminal', { name: 'Terminal Itajaí' });
    await putLayout(gate.http, terminal.key, 'appointment', 'descarga', {
      name: 'Descarga',
      card_layout: [{ type: 'field', label: 'Placa', path: 'appointment.license_plate' }],
      modal_layout: [],
    });
    const desk = await openPage(browser, { viewport: { width: 1280, height: 900 }, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    try {
      const { page } = desk;
      await page.goto(`${url}/panel`);
      await page.getByRole('button', { name: 'Chave de API', exact: true }).click();
      await page.getByLabel('Chave de API').fill(terminal.key);
      await page.getByRole('button', { name: 'Entrar' }).click();
      await page.getByRole('button', { name: 'Novo agendamento' }).click();
      const form = page.getByRole('form', { name: 'Novo agendamento' });
      const ref = uniqueRef('PL');
      await form.getByLabel('Referência').fill(ref);
      await form.getByLabel('Placa').fill('BRA2E19');
      await form.getByLabel('Início da janela').fill('2030-03-04T08:00');
      await form.getByLabel('Fim da janela').fill('2030-03-04T07:00');
      await form.getByLabel('Resumo').fill('Descarga de fertilizante');
      // Nothing typed for the driver, and a window that ends before it starts: each said at its field, nothing saved.
      await form.getByRole('button', { name: 'Criar agendamento' }).click();
      await form.getByRole('alert').filter({ hasText: 'Informe o CPF ou CNPJ do motorista, só com dígitos.' }).waitFor();
      expect(await form.getByLabel('CPF do motorista').getAttribute('aria-invalid')).toBe('true');
      expect((await gate.http.get('/api/v1/appointments').set('X-API-Key', terminal.key)).body.data.items).toEqual([]);

      const taxId = uniqueCpf();
      // Typed as people write it: the service is sent the digits.
      await form.getByLabel('CPF do motorista').fill(taxId.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4'));
      await form.getByLabel('Número da CNH').fill('SP-123456');
      await form.getByLabel('Categoria da CNH').fill('E');
      await form.getByRole('button', { name: 'Criar agendamento' }).click();
      await form.getByRole('alert').filter({ hasText: 'O fim não pode ser antes do início.' }).waitFor();
      expect(await form.getByLabel('Fim da janela').getAttribute('aria-invalid')).toBe('true');
      await form.getByLabel('Fim da janela').fill('2030-03-04T10:00');
      await form.getByRole('button', { name: 'Criar agendamento' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Agendamento ${ref} criado.` })
        .waitFor();

      const stored = (await gate.http.get('/api/v1/appointments/logs').query({ refs: ref }).set('X-API-Key', terminal.key)).body.data[0]
        .data;
      expect(stored.appointment).toMatchObject({
        layout_ref: 'descarga',
        license_plate: 'BRA2E19',
        summary: 'Descarga de fertilizante',
        window_start: '2030-03-04T11:00:00.000Z',
        window_end: '2030-03-04T13:00:00.000Z',
      });
      expect(stored.driver.tax_id).toBe(taxId);
      const row = page.locator('tbody tr', { hasText: ref });
      await row.getByText('Descarga', { exact: true }).waitFor();
      await desk.screenshot('words-panel-appointment-created');

      // Changed: only the fields that changed are sent, and the history names them.
      const detail = page.locator('.detail');
      await detail.getByRole('button', { name: `Alterar ${ref}` }).click();
      const edit = page.getByRole('form', { name: `Alterar ${ref}` });
      await edit.getByLabel('Placa').fill('BRA2E20');
      await edit.getByLabel('Tolerância depois (minutos)').fill('30');
      await edit.getByRole('button', { name: 'Salvar alterações' }).click();
      await detail
        .getByRole('status')
        .filter({ hasText: `Agendamento ${ref} alterado.` })
        .waitFor();
      await detail.getByText('Alterado: placa e tolerância depois da janela').waitFor();
      await row.getByText('BRA2E20').waitFor();

      // Cancelled after a confirmation: gone from the board, which shows deleted records only when asked.
      await detail.getByRole('button', { name: `Cancelar agendamento ${ref}` }).click();
      await detail.getByRole('button', { name: `Sim, cancelar ${ref}` }).click();
      await detail
        .getByRole('status')
        .filter({ hasText: `Agendamento ${ref} cancelado.` })
        .waitFor();
      await row.waitFor({ state: 'detached' });
      const deleted = (await gate.http.get('/api/v1/appointments/logs').query({ refs: ref }).set('X-API-Key', terminal.key)).body.data[0]
        .data;
      expect(deleted.appointment.status).toBe('DELETED');
      await page.getByRole('group', { name: 'Situação' }).getByLabel('Excluído').check();
      await page.getByRole('button', { name: 'Aplicar filtros' }).click();
      await row.getByText('Excluído').waitFor();
      expect(offending(await visibleTexts(page))).toEqual([]);
      expect(desk.problems).toEqual([]);
    } finally {
      await desk.context.close();
    }
  });
});

describe('the tickets on the phone', () => {
  it('show one current ticket per layout, the older ones under a history, and print the current ticket alone', async () => {
    const scene = await brazilianTerminal();
    const phone = await openPage(browser, { ...PHONE, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    try {
      const { page } = phone;
      await page.goto(`${url}/app#token=${scene.token}`);
      await page.getByRole('status').filter({ hasText: 'Ao vivo' }).waitFor();
      await page.getByRole('article', { name: scene.accepted }).getByRole('button', { name: 'Fazer check-in' }).click();
      await page
        .getByRole('article', { name: `Ticket de ${scene.accepted}` })
        .getByText('A3', { exact: true })
        .waitFor();

      // The terminal issues a new ticket of the same layout: it takes the old one's place, which goes to the history.
      const replaced = await gate.http
        .post('/api/v1/tickets')
        .set('X-API-Key', scene.terminal.key)
        .send({ appointment_ref: scene.accepted, layout_ref: 'passe', content: { gate: 'B7', doca: 9 } });
      expect(replaced.status).toBe(201);
      const current = page.getByRole('article', { name: `Ticket de ${scene.accepted}` });
      await current.getByText('B7', { exact: true }).waitFor();
      expect(await page.getByRole('article', { name: `Ticket de ${scene.accepted}` }).count()).toBe(1);
      const history = page.locator('details.ticket-history');
      await history.getByText('Histórico: 1 ticket anterior').waitFor();
      const older = page.getByRole('article', { name: `Ticket anterior de ${scene.accepted}` });
      expect(await older.isVisible()).toBe(false);
      await history.getByText('Histórico: 1 ticket anterior').click();
      await older.getByText('A3', { exact: true }).waitFor();
      await page.getByText(/^Ticket válido · emitido em /).waitFor();
      await phone.screenshot('words-app-ticket-history');

      // Printed: the current ticket alone, without the header, the buttons, the history or the cards.
      await page.emulateMedia({ media: 'print' });
      await phone.screenshot('words-app-ticket-print');
      expect(await current.isVisible()).toBe(true);
      for (const hidden of ['.app-bar', 'details.ticket-history', '.print-button', '#appointments-title'])
        expect(await page.locator(hidden).isVisible()).toBe(false);
      await page.emulateMedia({ media: 'screen' });
      await page.getByRole('button', { name: 'Imprimir' }).waitFor();
      expect(offending(await visibleTexts(page))).toEqual([]);
      expect(phone.problems).toEqual([]);
    } finally {
      await phone.context.close();
      scene.socket.close();
    }
  });
});

describe("a carrier's booking", () => {
  it("hands the booking's driver a sign-in link and code, printable alone", async () => {
    const terminal = await newAccount(gate.http, 'terminal', { name: 'Terminal Paranaguá' });
    const carrier = await newCarrier(gate.http);
    await putLayout(gate.http, terminal.key, 'appointment', 'retirada', {
      name: 'Retirada de contêiner',
      card_layout: [{ type: 'field', label: 'Placa', path: 'appointment.license_plate' }],
      modal_layout: [],
    });
    await saveRule(gate.http, terminal.key, 'portao', {
      name: 'Portão 2',
      time_zone: 'America/Sao_Paulo',
      slot_minutes: 60,
      capacity: 5,
      bookable_by: [carrier.id],
    });
    const taxId = uniqueCpf();
    const ref = uniqueRef('BK');
    const booked = await gate.http
      .post(`/api/v1/terminals/${terminal.id}/bookings`)
      .set('X-API-Key', carrier.key)
      .send(at('retirada', '2030-05-06T09:00:00-03:00', { ref, license_plate: 'CAR0A12' }, driver(taxId)));
    expect(booked.status).toBe(201);
    const desk = await openPage(browser, { viewport: { width: 1280, height: 900 }, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' });
    try {
      const { page } = desk;
      await page.goto(`${url}/panel`);
      await page.getByRole('button', { name: 'Chave de API', exact: true }).click();
      await page.getByLabel('Chave de API').fill(carrier.key);
      await page.getByRole('button', { name: 'Entrar' }).click();
      await page.getByRole('navigation').getByRole('button', { name: 'Reservas' }).click();
      const row = page.locator('tbody tr', { hasText: ref });
      const cpf = taxId.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4');
      await row.getByText(cpf).waitFor();
      await row.getByText('Retirada de contêiner').waitFor();
      await row.getByRole('button', { name: `Link de acesso do motorista de ${ref}` }).click();
      await page.getByRole('button', { name: `Gerar um link de acesso para ${cpf}` }).click();
      const shown = page.locator('.link-shown');
      const code = (await shown.locator('[data-code]').getAttribute('data-code'))!;
      expect(code).toMatch(/^[A-Z0-9]{8}$/);
      const link = (await shown.getByRole('link').getAttribute('href'))!;
      expect(link).toMatch(new RegExp(`^${url}/app#token=`));
      // The token is the carrier's, for this driver.
      const token = link.split('#token=')[1];
      const trips = await gate.http.get('/api/v1/driver/trips').set('Authorization', `Bearer ${token}`);
      expect(trips.status).toBe(200);
      expect(offending(await visibleTexts(page))).toEqual([]);

      // Printed: the code and its QR code alone.
      await page.evaluate(`document.body.dataset.print = 'sign-in'`);
      await page.emulateMedia({ media: 'print' });
      await desk.screenshot('words-panel-sign-in-code-print');
      const visible = await page.evaluate<string[]>(`[...document.querySelectorAll('body *')]
        .filter((el) => el.children.length === 0 && getComputedStyle(el).visibility === 'visible' && el.getClientRects().length && el.textContent.trim())
        .map((el) => el.textContent.trim())`);
      expect(visible).toEqual(expect.arrayContaining([code.slice(0, 4) + ' ' + code.slice(4)]));
      expect(visible.filter((text) => text === ref || text === 'Reservas')).toEqual([]);
      await page.emulateMedia({ media: 'screen' });
      expect(desk.problems).toEqual([]);
    } finally {
      await desk.context.close();
    }
  });
});
