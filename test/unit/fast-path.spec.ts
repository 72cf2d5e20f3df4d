import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import fc from 'fast-check';
import { passes } from '../../src/common/validation/fast-path.js';
import { validatePlain } from '../../src/common/validation/validate.js';
import { CreateAppointmentItemDto, UpdateAppointmentItemDto } from '../../src/modules/appointments/dto/appointment.dto.js';
import { CheckinConfirmDto, TerminalAnswerDto } from '../../src/modules/checkin/dto/checkin.dto.js';
import { CreateTicketDto } from '../../src/modules/tickets/dto/ticket.dto.js';
import { CreateTripItemDto, UpdateTripItemDto } from '../../src/modules/trips/dto/trip.dto.js';

/**
 * The validation fast path may only ever say "valid" when class-validator, run with the same options, finds
 * no issue: it skips class-validator then. Valid inputs must take it (or it saves nothing).
 */
const OPTIONS = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true };

const VALID: [new () => object, Record<string, unknown>][] = [
  [
    CreateAppointmentItemDto,
    {
      driver: { tax_id: '12345678901', driver_license_number: 'SP-1', license_category: 'E' },
      appointment: {
        ref: 'A-1',
        layout_ref: 'card',
        window_start: '2026-11-22T08:00:00-03:00',
        window_end: '2026-11-22T10:00:00-03:00',
        start_tolerance: 30,
        license_plate: 'ABC1D23',
        custom_data: { container: { number: 'MSCU1234567' } },
      },
    },
  ],
  [UpdateAppointmentItemDto, { ref: 'A-1', appointment: { status: 'ON_GOING', summary: null, end_tolerance: 0 } }],
  [
    CreateTripItemDto,
    {
      driver: { tax_id: '12345678901', driver_license_number: 'SP-1', license_category: 'E' },
      trip: { ref: 'T-1', layout_ref: 'trip', origin_state: 'SP', destiny_zip: '11010000', destiny_lat: -23.9, destiny_lng: -46.3 },
    },
  ],
  [UpdateTripItemDto, { ref: 'T-1', trip: { status: 'IN_TRANSIT', origin_lat: 90 } }],
  [CreateTicketDto, { appointment_ref: 'A-1', layout_ref: 'ticket', content: { gate: 'A3' } }],
  [
    CheckinConfirmDto,
    { appointment_ref: 'A-1', tickets: [{ layout_ref: 'ticket', content: {} }], checkin_id: '2b1f6a8e-3c4d-4e5f-8a9b-0c1d2e3f4a5b' },
  ],
  [TerminalAnswerDto, { accepted: true, tickets: [{ layout_ref: 'ticket', content: { lane: 2 } }] }],
];

/** Values that break one rule or another: wrong kinds, edge lengths, odd strings, nesting. */
const oddValue = fc.oneof(
  fc.constantFrom(
    null,
    undefined,
    '',
    ' ',
    0,
    -1,
    1.5,
    1441,
    91,
    -181,
    true,
    [],
    {},
    [{}],
    '\uFE0F',
    'SAO',
    'x'.repeat(101),
    '2026-11-22',
    'ON_GOING',
    'CHECKED_IN',
  ),
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Every path to a value in a plain JSON object. */
function paths(value: unknown, base: string[] = []): string[][] {
  if (typeof value !== 'object' || value === null) return [base];
  return [base, ...Object.entries(value).flatMap(([key, child]) => paths(child, [...base, key]))];
}

function mutate(value: Record<string, unknown>, path: string[], replacement: unknown, extraKey: string | null): Record<string, unknown> {
  const copy = structuredClone(value);
  let target: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string, unknown>;
  const last = path.at(-1);
  if (last !== undefined) {
    // Removed from an array by splicing: JSON never holds a sparse array.
    if (replacement === undefined && Array.isArray(target)) target.splice(Number(last), 1);
    else if (replacement === undefined) delete target[last];
    else target[last] = replacement;
  }
  if (extraKey !== null) target[extraKey] = 1;
  return copy;
}

describe('the validation fast path', () => {
  it.each(VALID.map(([type, value]) => [type.name, type, value] as const))('takes a valid %s', (_name, type, value) => {
    const result = validatePlain(type, structuredClone(value));
    expect(result.issues).toEqual([]);
    expect(passes(type, result.value!, false)).toBe(true);
  });

  it('never says valid where class-validator finds an issue', () => {
    const cases = fc.constantFrom(...VALID).chain(([type, value]) =>
      fc.record({
        type: fc.constant(type),
        value: fc.constant(value),
        path: fc.constantFrom(...paths(value)),
        replacement: oddValue,
        extraKey: fc.option(fc.constantFrom('unknown', 'status', 'driver', 'id', '__proto__x'), { nil: null }),
      }),
    );
    let disagreements = 0;
    fc.assert(
      fc.property(cases, ({ type, value, path, replacement, extraKey }) => {
        const input = mutate(value, path, replacement, extraKey);
        const result = validatePlain(type, input);
        if (!result.value) return;
        // validatePlain answered "valid": class-validator itself must agree on the value made an instance of its class.
        expect(validateSync(plainToInstance(type, result.value), OPTIONS)).toEqual([]);
        if (!passes(type, result.value, false)) disagreements++;
      }),
      { numRuns: 3000 },
    );
    // Valid mutations (a tolerance within range, a null an optional field allows) take the fast path too.
    expect(disagreements).toBe(0);
  });
});
