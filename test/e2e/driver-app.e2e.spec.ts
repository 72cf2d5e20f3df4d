import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { newAccount, type TestAccount } from '../factories/accounts.js';
import { gateScene, minutes } from '../factories/checkin.js';
import { putLayout } from '../factories/layouts.js';
import { createItem, createRecords, driver } from '../factories/records.js';
import { useTestApp } from '../setup/test-app.js';

/** Every card and modal element kind, with paths that exist, are nested deep, or are missing. */
const CARD = {
  name: 'Everything',
  card_layout: [
    { type: 'section', title: 'Pickup' },
    { type: 'field', label: 'Plate', path: 'license_plate' },
    { type: 'field', label: 'Plate again', path: 'appointment.license_plate' },
    { type: 'field', label: 'Driver', path: 'driver.tax_id' },
    { type: 'field', label: 'Category', path: 'driver.driver_license_category' },
    { type: 'field', label: 'Seal', path: 'custom_data.container.seal.number' },
    { type: 'field', label: 'Missing', path: 'custom_data.nothing.here' },
    { type: 'alert', color: 'red', text: 'Hazardous cargo', icon: 'warning' },
    { type: 'qrcode', path: 'ref' },
  ],
  modal_layout: [
    { type: 'qrcode', path: 'custom_data.container' },
    { type: 'field', label: 'Status', path: 'status' },
    { type: 'field', label: 'No such field', path: 'gate_number' },
  ],
};

/** The properties a schema of the served document (client/openapi.json, held equal to it by openapi-lint) documents. */
const documented = (schema: string) =>
  Object.keys(JSON.parse(readFileSync('client/openapi.json', 'utf8')).components.schemas[schema].properties).sort();

const TICKET = {
  name: 'Gate pass',
  elements: [
    { type: 'section', title: 'Gate pass' },
    { type: 'field', label: 'Gate', path: 'content.gate' },
    { type: 'divider' },
    { type: 'tag_container', tags: [{ text: 'Reefer', color: 'blue' }] },
    { type: 'attention', text: 'Stop at the scale', icon: 'alert' },
    { type: 'instruction', steps: ['Lane 3', 'Wait'] },
    { type: 'text', text: 'Good trip' },
    { type: 'highlight', label: 'Bay', path: 'content.slot.bay' },
    {
      type: 'highlight_grid',
      items: [
        { label: 'Row', path: 'content.slot.row' },
        { label: 'Tier', path: 'content.slot.tier' },
      ],
    },
    { type: 'field', label: 'Plate', path: 'appointment.license_plate' },
    { type: 'field', label: 'Driver', path: 'driver.tax_id' },
  ],
};

describe('the driver app API', () => {
  const t = useTestApp();
  let terminal: TestAccount;
  let taxId: string;
  let token: string;
  const asDriver = (path: string, bearer = token) => t.http.get(`/api/v1/driver/${path}`).set('Authorization', `Bearer ${bearer}`);

  beforeAll(async () => {
    const scene = await gateScene(t.http);
    ({ terminal, taxId, token } = scene);
    await putLayout(t.http, terminal.key, 'appointment', 'everything', CARD);
    await putLayout(t.http, terminal.key, 'ticket', 'pass-all', TICKET);
  });

  it('renders every card and modal element kind, missing paths as null, with the admissible window', async () => {
    const [ref] = await createRecords(t.http, terminal.key, 'appointment', [
      createItem(
        'appointment',
        'everything',
        {
          window_start: '2026-12-01T10:00:00Z',
          window_end: '2026-12-01T12:00:00Z',
          start_tolerance: 30,
          end_tolerance: 15,
          custom_data: { container: { number: 'MSCU1', seal: { number: 'S-77' } } },
        },
        driver(taxId),
      ),
    ]);
    const res = await asDriver('appointments');
    expect(res.status).toBe(200);
    const appointment = res.body.data.find((a: { ref: string }) => a.ref === ref);
    expect(appointment).toMatchObject({
      ref,
      status: 'SCHEDULED',
      terminal: { id: terminal.id, name: terminal.name },
      admissible_from: '2026-12-01T09:30:00.000Z',
      admissible_until: '2026-12-01T12:15:00.000Z',
      window_start: '2026-12-01T10:00:00.000Z',
    });
    expect(appointment.layout.layout_ref).toBe('everything');
    expect(appointment.layout.card_layout.map((e: { value?: unknown }) => e.value)).toEqual([
      undefined,
      'ABC1D23',
      'ABC1D23',
      taxId,
      'E',
      'S-77',
      null,
      undefined,
      ref,
    ]);
    expect(appointment.layout.card_layout[7]).toEqual({ type: 'alert', color: 'red', text: 'Hazardous cargo', icon: 'warning' });
    expect(JSON.parse(appointment.layout.modal_layout[0].value)).toEqual({ number: 'MSCU1', seal: { number: 'S-77' } });
    expect(appointment.layout.modal_layout).toEqual([
      { type: 'qrcode', path: 'custom_data.container', value: expect.any(String) },
      { type: 'field', label: 'Status', path: 'status', value: 'SCHEDULED' },
      { type: 'field', label: 'No such field', path: 'gate_number', value: null },
    ]);
  });

  it('renders every ticket element kind from content, the appointment and the driver', async () => {
    const [ref] = await createRecords(t.http, terminal.key, 'appointment', [createItem('appointment', 'everything', {}, driver(taxId))]);
    await t.http
      .post('/api/v1/tickets')
      .set('X-API-Key', terminal.key)
      .send({ appointment_ref: ref, layout_ref: 'pass-all', content: { gate: 'B2', slot: { bay: 7, row: 'R1' } } });
    const tickets = (await asDriver('tickets')).body.data;
    const ticket = tickets.find((x: { appointment_ref: string }) => x.appointment_ref === ref);
    const elements = ticket.layout.elements;
    expect(elements.map((e: { type: string }) => e.type)).toEqual(TICKET.elements.map((e) => e.type));
    expect(elements[1].value).toBe('B2');
    expect(elements[2]).toEqual({ type: 'divider' });
    expect(elements[3]).toEqual(TICKET.elements[3]);
    expect(elements[7].value).toBe(7);
    expect(elements[8].items).toEqual([
      { label: 'Row', path: 'content.slot.row', value: 'R1' },
      { label: 'Tier', path: 'content.slot.tier', value: null },
    ]);
    expect(elements[9].value).toBe('ABC1D23');
    expect(elements[10].value).toBe(taxId);
  });

  it('shows only live records: deleted and completed ones drop out, with their tickets', async () => {
    const [gone, done] = await createRecords(t.http, terminal.key, 'appointment', [
      createItem('appointment', 'everything', {}, driver(taxId)),
      createItem('appointment', 'everything', {}, driver(taxId)),
    ]);
    await t.http
      .post('/api/v1/tickets')
      .set('X-API-Key', terminal.key)
      .send({ appointment_ref: gone, layout_ref: 'pass-all', content: {} });
    await t.http.delete('/api/v1/appointments').set('X-API-Key', terminal.key).send([gone]);
    await t.http
      .put('/api/v1/appointments')
      .set('X-API-Key', terminal.key)
      .send({ ref: done, appointment: { status: 'ON_GOING' } });
    await t.http
      .put('/api/v1/appointments')
      .set('X-API-Key', terminal.key)
      .send({ ref: done, appointment: { status: 'COMPLETED' } });
    const refs = (await asDriver('appointments')).body.data.map((a: { ref: string }) => a.ref);
    expect(refs).not.toContain(gone);
    expect(refs).not.toContain(done);
    expect((await asDriver('tickets')).body.data.map((x: { appointment_ref: string }) => x.appointment_ref)).not.toContain(gone);
  });

  it('renders trips with their carrier layout', async () => {
    const carrier = await newAccount(t.http, 'carrier');
    await putLayout(t.http, carrier.key, 'trip', 'trip-card', {
      card_layout: [
        { type: 'field', label: 'To', path: 'trip.to_location' },
        { type: 'field', label: 'State', path: 'destiny_state' },
      ],
      modal_layout: [{ type: 'qrcode', path: 'driver.tax_id' }],
    });
    const [ref] = await createRecords(t.http, carrier.key, 'trip', [
      createItem('trip', 'trip-card', { window_start: minutes(-10), window_end: minutes(10) }, driver(taxId)),
    ]);
    const carrierToken = (await t.http.post(`/api/v1/drivers/${taxId}/tokens`).set('X-API-Key', carrier.key)).body.data.token;
    const trip = (await asDriver('trips', carrierToken)).body.data.find((x: { ref: string }) => x.ref === ref);
    expect(trip).toMatchObject({ ref, status: 'PLANNED', carrier: { id: carrier.id, name: carrier.name }, to_location: 'Rio' });
    expect(trip.layout.card_layout.map((e: { value: unknown }) => e.value)).toEqual(['Rio', 'RJ']);
    expect(trip.layout.modal_layout[0].value).toBe(taxId);
  });

  it('answers a record with exactly the fields its schema documents', async () => {
    const [appointmentRef] = await createRecords(t.http, terminal.key, 'appointment', [
      createItem('appointment', 'everything', { window_start: minutes(-10), window_end: minutes(10) }, driver(taxId)),
    ]);
    const appointment = (await asDriver('appointments')).body.data.find((x: { ref: string }) => x.ref === appointmentRef);
    expect(Object.keys(appointment).sort()).toEqual(documented('DriverAppointmentView'));

    const carrier = await newAccount(t.http, 'carrier');
    await putLayout(t.http, carrier.key, 'trip', 'trip-fields', CARD);
    const [tripRef] = await createRecords(t.http, carrier.key, 'trip', [createItem('trip', 'trip-fields', {}, driver(taxId))]);
    const carrierToken = (await t.http.post(`/api/v1/drivers/${taxId}/tokens`).set('X-API-Key', carrier.key)).body.data.token;
    const trip = (await asDriver('trips', carrierToken)).body.data.find((x: { ref: string }) => x.ref === tripRef);
    expect(Object.keys(trip).sort()).toEqual(documented('DriverTripView'));
    expect(trip.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('isolates drivers: each token sees only its own driver’s records and tickets', async () => {
    const other = await gateScene(t.http);
    await other.appointment();
    const mine = (await asDriver('appointments')).body.data.map((a: { id: string }) => a.id);
    const theirs = (await asDriver('appointments', other.token)).body.data.map((a: { id: string }) => a.id);
    expect(mine.length).toBeGreaterThan(0);
    expect(theirs.length).toBe(2);
    expect(mine.filter((id: string) => theirs.includes(id))).toEqual([]);
    expect((await asDriver('tickets', other.token)).body.data).toEqual([]);
    expect((await asDriver('appointments', 'not-a-token')).status).toBe(401);
    expect((await t.http.get('/api/v1/driver/appointments').set('X-API-Key', terminal.key)).status).toBe(401);
  });
});

/** A card and a ticket whose texts are written in pt-BR, es and en, or some of them, beside plain strings. */
const PLATE = { 'pt-BR': 'Placa', es: 'Placa del camión', en: 'Plate' };
const CARD_IN_LANGUAGES = {
  card_layout: [
    { type: 'section', title: { es: 'Retiro', 'pt-BR': 'Retirada' } },
    { type: 'field', label: PLATE, path: 'license_plate' },
    { type: 'alert', color: 'yellow', text: 'MSCU1234567', icon: 'warning' },
  ],
  modal_layout: [{ type: 'field', label: { es: 'Contenedor' }, path: 'custom_data.container.number' }],
};
const TICKET_IN_LANGUAGES = {
  elements: [
    { type: 'highlight', label: { 'pt-BR': 'Portão', es: 'Puerta', en: 'Gate' }, path: 'content.gate' },
    { type: 'tag_container', tags: [{ text: { 'pt-BR': 'Refrigerado', en: 'Reefer' }, color: 'blue' }] },
    { type: 'instruction', steps: [{ 'pt-BR': 'Pare na balança', es: 'Pare en la báscula', en: 'Stop at the scale' }, 'Lane 3'] },
    { type: 'highlight_grid', items: [{ label: { en: 'Bay', es: 'Andén' }, path: 'content.bay' }] },
  ],
};

describe('the driver app API: layout texts in the language of the request', () => {
  const t = useTestApp();
  let token: string;
  const asDriver = (path: string, language?: string) => {
    const request = t.http.get(`/api/v1/driver/${path}`).set('Authorization', `Bearer ${token}`);
    return language === undefined ? request : request.set('Accept-Language', language);
  };
  /** The texts of the scene's appointment card and of its ticket, as the driver routes draw them. */
  const textsIn = async (language?: string) => {
    const [appointment] = (await asDriver('appointments', language)).body.data;
    const [ticket] = (await asDriver('tickets', language)).body.data;
    const [section, plate, alert] = appointment.layout.card_layout;
    const [gate, tags, steps, grid] = ticket.layout.elements;
    return {
      card: [section.title, plate.label, alert.text, appointment.layout.modal_layout[0].label],
      ticket: [gate.label, tags.tags[0].text, steps.steps, grid.items[0].label],
      values: [plate.value, gate.value, grid.items[0].value],
    };
  };

  beforeAll(async () => {
    const scene = await gateScene(t.http);
    token = scene.token;
    await putLayout(t.http, scene.terminal.key, 'appointment', 'appt', CARD_IN_LANGUAGES);
    await putLayout(t.http, scene.terminal.key, 'ticket', 'gate-pass', TICKET_IN_LANGUAGES);
    const [{ ref }] = (await t.http.get('/api/v1/appointments').set('X-API-Key', scene.terminal.key)).body.data.items.map(
      (item: { appointment: { ref: string } }) => item.appointment,
    );
    const ticket = await t.http
      .post('/api/v1/tickets')
      .set('X-API-Key', scene.terminal.key)
      .send({ appointment_ref: ref, layout_ref: 'gate-pass', content: { gate: 'A3', bay: 12 } });
    expect(ticket.status).toBe(201);
  });

  it('draws each text in the language of Accept-Language, best match of pt-BR, es and en', async () => {
    expect(await textsIn('pt-BR,pt;q=0.9,en;q=0.8')).toEqual({
      card: ['Retirada', 'Placa', 'MSCU1234567', 'Contenedor'],
      ticket: ['Portão', 'Refrigerado', ['Pare na balança', 'Lane 3'], 'Bay'],
      values: ['ABC1D23', 'A3', 12],
    });
    expect(await textsIn('es-MX,es;q=0.9')).toEqual({
      card: ['Retiro', 'Placa del camión', 'MSCU1234567', 'Contenedor'],
      ticket: ['Puerta', 'Reefer', ['Pare en la báscula', 'Lane 3'], 'Andén'],
      values: ['ABC1D23', 'A3', 12],
    });
    // pt-PT and a lower weight for English still choose Portuguese (Brazil).
    expect((await textsIn('fr-FR, pt-PT;q=0.8, en;q=0.5')).card[1]).toBe('Placa');
  });

  it('falls back to en, then to pt-BR, then to es, without a header or with none of the three', async () => {
    const english = {
      card: ['Retirada', 'Plate', 'MSCU1234567', 'Contenedor'],
      ticket: ['Gate', 'Reefer', ['Stop at the scale', 'Lane 3'], 'Bay'],
      values: ['ABC1D23', 'A3', 12],
    };
    expect(await textsIn()).toEqual(english);
    expect(await textsIn('de-DE, fr;q=0.8')).toEqual(english);
    expect(await textsIn('en-GB')).toEqual(english);
  });

  it('answers the layout as saved, objects included, to its owner', async () => {
    const scene = await gateScene(t.http);
    await putLayout(t.http, scene.terminal.key, 'ticket', 'gate-pass', TICKET_IN_LANGUAGES);
    const saved = await t.http.get('/api/v1/layouts/ticket/gate-pass').set('X-API-Key', scene.terminal.key);
    expect(saved.body.data.elements).toEqual(TICKET_IN_LANGUAGES.elements);
  });

  it('previews in the language of Accept-Language, saved layouts and drafts alike', async () => {
    const scene = await gateScene(t.http);
    await putLayout(t.http, scene.terminal.key, 'ticket', 'gate-pass', TICKET_IN_LANGUAGES);
    const data = { content: { gate: 'C1', bay: 4 } };
    const saved = await t.http
      .post('/api/v1/layouts/ticket/gate-pass/preview')
      .set({ 'X-API-Key': scene.terminal.key, 'Accept-Language': 'es' })
      .send({ data });
    expect(saved.body.data.elements[0]).toEqual({ type: 'highlight', label: 'Puerta', path: 'content.gate', value: 'C1' });
    const draft = await t.http
      .post('/api/v1/layouts/ticket/preview')
      .set({ 'X-API-Key': scene.terminal.key, 'Accept-Language': 'pt-BR' })
      .send({ layout: TICKET_IN_LANGUAGES, data });
    expect(draft.body.data.elements[2].steps).toEqual(['Pare na balança', 'Lane 3']);
  });

  it('refuses a text of an unknown language, an empty object or an empty text, each at its path, and saves nothing', async () => {
    const scene = await gateScene(t.http);
    const res = await t.http
      .put('/api/v1/layouts/ticket/bad-texts')
      .set('X-API-Key', scene.terminal.key)
      .send({
        elements: [
          { type: 'field', label: { fr: 'Plaque' }, path: 'content.plate' },
          { type: 'section', title: {} },
          { type: 'instruction', steps: [{ es: '' }] },
          { type: 'text', text: 42 },
        ],
      });
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors).toEqual([
      { path: 'elements[0].label.fr', message: 'is not a language of layout texts: use pt-BR, es, en, written so' },
      { path: 'elements[1].title', message: 'must give the text in at least one of pt-BR, es, en' },
      { path: 'elements[2].steps[0].es', message: 'must be a non-empty string' },
      {
        path: 'elements[3].text',
        message:
          'must be a non-empty string, or an object of the text in each language, such as {"pt-BR": "Placa", "es": "Placa", "en": "Plate"}',
      },
    ]);
    expect((await t.http.get('/api/v1/layouts/ticket/bad-texts').set('X-API-Key', scene.terminal.key)).status).toBe(404);
  });
});

describe('layout preview (POST /api/v1/layouts/{set}/{ref}/preview)', () => {
  const t = useTestApp();
  let terminal: TestAccount;
  beforeAll(async () => {
    terminal = await newAccount(t.http, 'terminal');
    await putLayout(t.http, terminal.key, 'appointment', 'everything', CARD);
    await putLayout(t.http, terminal.key, 'ticket', 'pass-all', TICKET);
  });

  const preview = (set: string, ref: string, body: unknown, key = terminal.key) =>
    t.http
      .post(`/api/v1/layouts/${set}/${ref}/preview`)
      .set('X-API-Key', key)
      .send(body as object);

  it('renders a card layout against sample data exactly as drivers get it', async () => {
    const res = await preview('appointment', 'everything', {
      data: { license_plate: 'XYZ', ref: 'R-1', driver: { tax_id: '99' }, custom_data: { container: { seal: { number: 'S-1' } } } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.layout_ref).toBe('everything');
    expect(res.body.data.card_layout.map((e: { value?: unknown }) => e.value)).toEqual([
      undefined,
      'XYZ',
      'XYZ',
      '99',
      null,
      'S-1',
      null,
      undefined,
      'R-1',
    ]);
  });

  it('renders a ticket layout from sample content', async () => {
    const res = await preview('ticket', 'pass-all', { data: { content: { gate: 'G', slot: { bay: 1 } } } });
    expect(res.body.data.elements[1].value).toBe('G');
    expect(res.body.data.elements[7].value).toBe(1);
    expect(res.body.data.elements[9].value).toBeNull();
  });

  it('refuses bad input and unknown layouts', async () => {
    expect((await preview('appointment', 'everything', { data: 'x' })).body.error.code).toBe('VALIDATION_ERROR');
    expect((await preview('appointment', 'everything', { data: {}, extra: 1 })).body.error.details.errors[0].path).toBe('extra');
    expect((await preview('appointment', 'nope', { data: {} })).status).toBe(404);
    const carrier = await newAccount(t.http, 'carrier');
    expect((await preview('appointment', 'everything', { data: {} }, carrier.key)).status).toBe(403);
  });
});
