import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { APPOINTMENTS } from '../../src/modules/appointments/appointments.definition.js';
import type { MoveKind, RecordDefinition } from '../../src/modules/records/record-definition.js';
import { allows, planMove } from '../../src/modules/records/transitions.js';
import { TRIPS } from '../../src/modules/trips/trips.definition.js';

const KINDS: MoveKind[] = ['put', 'delete', 'checkin', 'arrival'];

/** The status table of docs/statuses.md for one kind of record: [from statuses, moved by, to, log event]. */
function documentedMoves(section: string, statuses: readonly string[]) {
  const doc = readFileSync(new URL('../../docs/statuses.md', import.meta.url), 'utf8');
  const body = doc.split(`## ${section}`)[1].split('\n## ')[0];
  return body
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| From') && !line.startsWith('|---'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    )
    .filter(([from]) => from !== '(none)')
    .map(([from, by, to, event]) => {
      const via: MoveKind = by.includes('PUT') ? 'put' : by.includes('DELETE') ? 'delete' : by.includes('geofence') ? 'arrival' : 'checkin';
      const named = [...from.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]);
      const fromStatuses = from.startsWith('any but') ? statuses.filter((s) => !named.includes(s)) : named;
      return { from: fromStatuses, via, to: to.replace(/`/g, ''), event: event.replace(/`/g, '') };
    });
}

const row = (def: RecordDefinition, status: string) => ({
  id: 'id-1',
  ref: 'REF-1',
  status,
  driver_id: 'driver-1',
  [def.ownerColumn]: 'owner-1',
});

describe.each([
  ['Appointments', APPOINTMENTS],
  ['Trips', TRIPS],
] as const)('the status table of %s', (section, def) => {
  const documented = documentedMoves(section, def.statuses);

  it('is the one docs/statuses.md documents, move for move', () => {
    for (const from of def.statuses)
      for (const to of def.statuses)
        for (const via of KINDS) {
          const inDocs = documented.some((move) => move.via === via && move.to === to && move.from.includes(from));
          const noop = via === 'put' && from === to && from !== 'DELETED';
          expect({ from, to, via, allowed: allows(def, from, to, via) }).toEqual({ from, to, via, allowed: inDocs || noop });
        }
  });

  it('logs each move under the documented event, with its facts, and feeds it to the driver', () => {
    for (const move of documented) {
      const planned = planMove(def, {
        record: row(def, move.from[0]),
        to: move.to,
        via: move.via,
        data: { extra: 1 },
        facts: { fact: 2 },
      })!;
      expect(planned.log).toEqual({
        recordId: 'id-1',
        event: move.event,
        message: `Status changed from ${move.from[0]} to ${move.to}`,
        data: { from: move.from[0], to: move.to, via: move.via, extra: 1, fact: 2 },
      });
      const event = (partnerId: string) => ({
        driverId: 'driver-1',
        partnerId,
        type: `${def.noun}.status`,
        data: { id: 'id-1', ref: 'REF-1', status: move.to, previous_status: move.from[0], extra: 1 },
      });
      expect(planned.events).toEqual([event('owner-1')]);
      if (def.partner) {
        const booked = { ...row(def, move.from[0]), [def.partner.column]: 'carrier-1' };
        expect(planMove(def, { record: booked, to: move.to, via: move.via, data: { extra: 1 } })!.events).toEqual([
          event('owner-1'),
          event('carrier-1'),
        ]);
      }
    }
  });

  it('answers a PUT to the current status with nothing to write, and refuses the rest with the move named', () => {
    expect(planMove(def, { record: row(def, def.initialStatus), to: def.initialStatus, via: 'put' })).toBeNull();
    expect(() => planMove(def, { record: row(def, 'DELETED'), to: 'DELETED', via: 'delete' })).toThrow(
      expect.objectContaining({ code: 'INVALID_STATUS_TRANSITION', details: { ref: 'REF-1', from: 'DELETED', to: 'DELETED' } }),
    );
    expect(() => planMove(def, { record: row(def, def.initialStatus), to: 'CHECKED_IN', via: 'put' })).toThrow(
      expect.objectContaining({ code: 'INVALID_STATUS_TRANSITION' }),
    );
  });
});
