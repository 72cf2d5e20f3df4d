/**
 * Values the OpenAPI examples share, so one example's ids meet in the next (the ticket of the appointment
 * created above, the terminal that owns both). An e2e test lints every example against its schema.
 */
const VALUES = {
  terminalId: '5a58d8a0-f00a-4bf9-98b1-4bf5cb22f5be',
  carrierId: 'de6e6927-84a2-496a-8e6e-4e06dbc8e7ee',
  adminId: '0b8f5a52-7f3c-4d0e-9a51-2f7d8c1e6a90',
  apiKeyId: '075ef8a5-598b-4ced-8cdf-de8333bb6649',
  userId: '3b9d2c61-7f0a-4e5b-9c1d-2a6e8f4b7c30',
  apiKey: 'gsk_5gUcsUitpUyGtqq3hvngtNBpJ1lv4s5yogSsLeFKVtE',
  apiKeyPrefix: 'gsk_5gUcsU',
  appointmentId: 'e42a0409-cac9-49c1-b345-87c37d7b7c3d',
  appointmentId2: '1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  tripId: '6dbb5862-ed72-4b9b-a3f6-3645d3062a77',
  tripId2: '7a1b2c3d-4e5f-4a6b-9c8d-7e6f5a4b3c2d',
  ticketId: '3ca52219-979d-412b-ab3f-10061b1d4f8d',
  ticketId2: '50f3b6a6-bcf3-44d4-9113-ac0bca1de740',
  checkinId: '9f0e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f',
  /** Timestamps of records and accounts: ISO 8601 in UTC. */
  createdAt: '2026-11-22T04:48:54.123Z',
  updatedAt: '2026-11-22T05:02:10.456Z',
  windowStart: '2026-11-22T11:00:00.000Z',
  windowEnd: '2026-11-22T13:00:00.000Z',
  /** Log entries: UTC with microseconds and no zone designator. */
  loggedAt: '2026-11-22T04:48:54.123456',
  loggedLater: '2026-11-22T05:02:10.456789',
  /** Who made a log entry: a partner's key, and a person of the account (docs/audit.md#actors). */
  keyActor: { type: 'api_key', id: '0b6f2c1e-8d4a-4f3b-9e2d-7c1a5b4e3f21', name: 'TMS', key_id: '0b6f2c1e-8d4a-4f3b-9e2d-7c1a5b4e3f21' },
  userActor: { type: 'user', id: '9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d', name: 'Ana Souza', email: 'ana@terminal.example' },
  driver: { tax_id: '12345678901', driver_license_number: 'SP-998877', license_category: 'E' },
  driverView: { tax_id: '12345678901', driver_license_number: 'SP-998877', driver_license_category: 'E' },
  driverToken:
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwMSIsImlhdCI6MTc5NTMzNjkzNCwiZXhwIjoxNzk1MzgwMTM0fQ.kpkgiTBY0iazC8VmkiWQgrPqA47ZLPmQOinpGQ59gyA',
} as const;

export const EXAMPLE = {
  ...VALUES,
  /** The schedule fields of an appointment or trip as the service shows them. */
  schedule: {
    license_plate: 'ABC1D23',
    summary: null,
    window_start: VALUES.windowStart,
    window_end: VALUES.windowEnd,
    start_tolerance: 30,
    end_tolerance: 0,
    custom_data: { container: { number: 'MSCU1234567' } },
  },
  /** A ticket as GET /api/v1/tickets, the check-in answer and the driver feed show it. */
  ticket: {
    id: VALUES.ticketId,
    appointment_id: VALUES.appointmentId,
    appointment_ref: 'APPT-0001',
    terminal_id: VALUES.terminalId,
    layout_ref: 'demo-ticket',
    content: { gate: 'A3', lane: 2 },
    created_at: VALUES.createdAt,
    updated_at: VALUES.updatedAt,
  },
} as const;

/** The success envelope around an example's data. */
export const okExample = (data: unknown) => ({ success: true, data });
