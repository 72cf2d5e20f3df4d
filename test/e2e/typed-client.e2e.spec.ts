import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from '@jest/globals';
import createClient from 'openapi-fetch';
import type { paths } from '../../client/schema.js';
import { TEST_ADMIN_KEY, useTestApp } from '../setup/test-app.js';

/**
 * The partner flows as a partner's developer integrates them: only through the client generated from the
 * served document (`client/schema.d.ts`, openapi-typescript) and openapi-fetch, against a listening app.
 * Type-checked by `npm run typecheck`, so a path, body or field the document does not describe fails the build.
 */
describe('a typed client generated from /docs-json', () => {
  const t = useTestApp();
  let baseUrl: string;
  const client = (headers: Record<string, string>) => createClient<paths>({ baseUrl, headers });

  beforeAll(() => {
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });

  it('walks the carrier, terminal and driver flows', async () => {
    const admin = client({ 'X-API-Key': TEST_ADMIN_KEY });
    const terminalAccount = await admin.POST('/api/v1/admin/accounts', {
      body: { kind: 'terminal', name: 'Typed Port', location: { lat: -23.9608, lng: -46.3336, radius_m: 800 } },
    });
    expect(terminalAccount.response.status).toBe(201);
    const carrierAccount = await admin.POST('/api/v1/admin/accounts', { body: { kind: 'carrier', name: 'Typed Carrier' } });
    expect(carrierAccount.data?.data.kind).toBe('carrier');
    const terminal = client({ 'X-API-Key': terminalAccount.data!.data.api_key! });
    const carrier = client({ 'X-API-Key': carrierAccount.data!.data.api_key! });
    // Who each key is.
    const whoAmI = await terminal.GET('/api/v1/me');
    expect(whoAmI.data?.data).toEqual({
      kind: 'terminal',
      account_id: terminalAccount.data!.data.id,
      name: 'Typed Port',
      permissions: expect.arrayContaining(['appointments:write', 'users:write']),
      user: null,
      csrf_token: null,
      mfa_setup_required: false,
    });
    expect((await admin.GET('/api/v1/me')).data?.data.account_id).toBeNull();

    // Layouts: the carrier's trip card, the terminal's appointment card and ticket.
    const card = {
      name: 'Pickup',
      card_layout: [
        { type: 'section' as const, title: 'Pickup' },
        { type: 'field' as const, label: 'Plate', path: 'license_plate' },
      ],
      modal_layout: [{ type: 'qrcode' as const, path: 'ref' }],
    };
    const tripLayout = await carrier.PUT('/api/v1/layouts/{set}/{layout_ref}', {
      params: { path: { set: 'trip', layout_ref: 'typed-trip' } },
      body: card,
    });
    expect(tripLayout.response.status).toBe(201);
    expect(tripLayout.data?.data.set).toBe('trip');
    const appointmentLayout = await terminal.PUT('/api/v1/layouts/{set}/{layout_ref}', {
      params: { path: { set: 'appointment', layout_ref: 'typed-appointment' } },
      body: card,
    });
    expect(appointmentLayout.response.status).toBe(201);
    const ticketLayout = await terminal.PUT('/api/v1/layouts/{set}/{layout_ref}', {
      params: { path: { set: 'ticket', layout_ref: 'typed-ticket' } },
      body: { name: 'Gate pass', elements: [{ type: 'highlight', label: 'Gate', path: 'content.gate' }] },
    });
    expect(ticketLayout.data?.data.elements).toHaveLength(1);

    // The carrier's trip: create, move to IN_TRANSIT, read its history.
    const driver = { tax_id: '98765432100', driver_license_number: 'SP-123456', license_category: 'E' };
    const trip = await carrier.POST('/api/v1/trips', {
      body: {
        driver,
        trip: {
          ref: 'TYPED-TRIP-1',
          layout_ref: 'typed-trip',
          license_plate: 'ABC1D23',
          origin_lat: -23.5,
          destiny_state: 'SP',
          summary: null,
        },
      },
    });
    expect(trip.data?.data).toMatchObject({ created_refs: ['TYPED-TRIP-1'], status: 'created' });
    const moved = await carrier.PUT('/api/v1/trips', { body: { ref: 'TYPED-TRIP-1', trip: { status: 'IN_TRANSIT' } } });
    expect(moved.data?.data.updated_refs).toEqual(['TYPED-TRIP-1']);
    // The carrier lists what is in transit, a page at a time; a retried create under one Idempotency-Key is replayed.
    const inTransit = await carrier.GET('/api/v1/trips', { params: { query: { status: ['IN_TRANSIT'], limit: 1 } } });
    expect(inTransit.data?.data.items.map((item) => item.trip.ref)).toEqual(['TYPED-TRIP-1']);
    expect(inTransit.data?.data.next_cursor).toBeNull();
    const retried = { driver, trip: { ref: 'TYPED-TRIP-2', layout_ref: 'typed-trip' } };
    const once = await carrier.POST('/api/v1/trips', { body: retried, params: { header: { 'Idempotency-Key': 'typed-retry-1' } } });
    const twice = await carrier.POST('/api/v1/trips', { body: retried, params: { header: { 'Idempotency-Key': 'typed-retry-1' } } });
    expect(twice.data?.data).toEqual(once.data?.data);
    expect(twice.response.headers.get('Idempotent-Replayed')).toBe('true');
    const tripLogs = await carrier.GET('/api/v1/trips/logs', { params: { query: { refs: ['TYPED-TRIP-1', 'NO-SUCH-TRIP'] } } });
    const [found, missing] = tripLogs.data!.data;
    expect(found.found).toBe(true);
    expect(found.data?.trip.status).toBe('IN_TRANSIT');
    expect(found.data?.driver.tax_id).toBe(driver.tax_id);
    expect(found.data?.logs.map((log) => log.event)).toEqual(['in_transit', 'created']);
    expect(missing).toEqual({ ref: 'NO-SUCH-TRIP', found: false, data: null });

    // The terminal's appointment: create with its driver, update, tickets, logs.
    const now = Date.now();
    const appointment = await terminal.POST('/api/v1/appointments', {
      body: [
        {
          driver,
          appointment: {
            ref: 'TYPED-APPT-1',
            layout_ref: 'typed-appointment',
            window_start: new Date(now - 3_600_000).toISOString(),
            window_end: new Date(now + 3_600_000).toISOString(),
            custom_data: { container: { number: 'MSCU1234567' } },
          },
        },
      ],
    });
    expect(appointment.response.status).toBe(201);
    const appointmentId = appointment.data!.data.created_ids[0];
    const updated = await terminal.PUT('/api/v1/appointments', {
      body: { ref: 'TYPED-APPT-1', appointment: { license_plate: 'XYZ9K88', start_tolerance: 15 } },
    });
    expect(updated.data?.data.status).toBe('updated');

    const created = await terminal.POST('/api/v1/tickets', {
      body: { appointment_ref: 'TYPED-APPT-1', layout_ref: 'typed-ticket', content: { gate: 'A3' } },
    });
    const [ticketId] = created.data!.data.created_ids;
    const second = await terminal.POST('/api/v1/tickets', {
      body: [{ appointment_ref: 'TYPED-APPT-1', layout_ref: 'typed-ticket', content: { gate: 'B7' } }],
    });
    const replaced = await terminal.PUT('/api/v1/tickets', { body: { ticket_id: ticketId, content: { gate: 'C1' } } });
    expect(replaced.data?.data.updated_ids).toEqual([ticketId]);
    const deleted = await terminal.DELETE('/api/v1/tickets', { body: second.data!.data.created_ids });
    expect(deleted.data?.data.status).toBe('deleted');
    const tickets = await terminal.GET('/api/v1/tickets', { params: { query: { appointment_refs: ['TYPED-APPT-1'] } } });
    const [ofAppointment] = tickets.data!.data;
    expect(ofAppointment.data?.map((ticket) => [ticket.id, ticket.appointment_id, ticket.content])).toEqual([
      [ticketId, appointmentId, { gate: 'C1' }],
    ]);
    const appointmentLogs = await terminal.GET('/api/v1/appointments/logs', { params: { query: { refs: ['TYPED-APPT-1'] } } });
    const history = appointmentLogs.data!.data[0].data!;
    expect(history.appointment.license_plate).toBe('XYZ9K88');
    expect(history.appointment.start_tolerance).toBe(15);
    expect(history.logs.map((log) => log.event)).toContain('created');

    // The driver: a token from the terminal, then the driver app's own route with a Bearer token.
    const token = await terminal.POST('/api/v1/drivers/{tax_id}/tokens', { params: { path: { tax_id: driver.tax_id } } });
    expect(token.response.status).toBe(201);
    const driverApp = client({ Authorization: `Bearer ${token.data!.data.token}` });
    const mine = await driverApp.GET('/api/v1/driver/appointments');
    expect(mine.data?.data.map((record) => [record.id, record.ref, record.status])).toEqual([[appointmentId, 'TYPED-APPT-1', 'SCHEDULED']]);
    expect(mine.data?.data[0].layout?.card_layout).toHaveLength(2);

    // An error answer is the typed error envelope.
    const duplicate = await carrier.POST('/api/v1/trips', { body: { driver, trip: { ref: 'TYPED-TRIP-1', layout_ref: 'typed-trip' } } });
    expect(duplicate.response.status).toBe(409);
    expect(duplicate.data).toBeUndefined();
    expect(duplicate.error?.success).toBe(false);
    const code: string | undefined = duplicate.error?.error.code;
    expect(code).toBe('DUPLICATE_KEY');
  });
});
