import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import type { Type } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { APPOINTMENTS } from '../../src/modules/appointments/appointments.definition.js';
import { CreateAppointmentDto, UpdateAppointmentDto } from '../../src/modules/appointments/dto/appointment.dto.js';
import type { RecordDefinition } from '../../src/modules/records/record-definition.js';
import { CreateTripDto, UpdateTripDto } from '../../src/modules/trips/dto/trip.dto.js';
import { TRIPS } from '../../src/modules/trips/trips.definition.js';

/** The served OpenAPI document, as committed (the openapi-lint e2e test holds the two equal). */
const DOCUMENT = JSON.parse(readFileSync('client/openapi.json', 'utf8')) as {
  components: { schemas: Record<string, { properties: Record<string, unknown> }> };
};
const documented = (schema: string) => Object.keys(DOCUMENT.components.schemas[schema].properties);

const fieldsOf = (dto: Type<object>) =>
  new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(dto, '', false, false)
      .map((m) => m.propertyName),
  );

/**
 * A record's columns are declared once, on its entity; the definition derives them. The DTOs declare how
 * each is validated, and must name exactly those columns (plus ref, layout_ref and, on update, status).
 */
describe.each([
  ['appointments', APPOINTMENTS, CreateAppointmentDto, UpdateAppointmentDto, 'AppointmentLogView', 'DriverAppointmentView'],
  ['trips', TRIPS, CreateTripDto, UpdateTripDto, 'TripLogView', 'DriverTripView'],
] as [string, RecordDefinition, Type<object>, Type<object>, string, string][])(
  'the %s definition',
  (_name, def, create, update, view, driverApp) => {
    it('derives its data columns and zero defaults from the entity', () => {
      expect(Object.keys(def.columns)).toEqual(expect.arrayContaining(['license_plate', 'summary', 'window_start', 'custom_data']));
      expect(Object.keys(def.columns)).not.toEqual(expect.arrayContaining(['id']));
      expect([...def.zeroDefaults].sort()).toEqual(['end_tolerance', 'start_tolerance']);
    });

    it('has DTOs that validate exactly its columns', () => {
      const columns = Object.keys(def.columns).sort();
      expect([...fieldsOf(create)].sort()).toEqual([...columns, 'layout_ref', 'ref'].sort());
      expect([...fieldsOf(update)].sort()).toEqual([...columns, 'layout_ref', 'status'].sort());
    });

    it('lists the fields of its view as the OpenAPI document shows them, in order', () => {
      expect(def.viewFields).toEqual(documented(view));
    });

    it('lists the fields the driver app shows as its schema documents them (the rendered layout aside)', () => {
      expect([...def.driverAppFields].sort()).toEqual(
        documented(driverApp)
          .filter((field) => field !== 'layout')
          .sort(),
      );
    });

    it('moves only between its statuses, and every status but the first is reached by some move', () => {
      for (const move of def.moves) {
        expect(def.statuses).toContain(move.to);
        for (const from of move.from) expect(def.statuses).toContain(from);
      }
      const reached = new Set(def.moves.map((move) => move.to));
      expect(def.statuses.filter((status) => status !== def.initialStatus && !reached.has(status))).toEqual([]);
    });
  },
);
