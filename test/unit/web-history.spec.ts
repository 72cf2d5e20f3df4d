import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { IntlMessageFormat } from 'intl-messageformat';
import { APPOINTMENTS } from '../../src/modules/appointments/appointments.definition.js';
import { planMove, type StatusChange } from '../../src/modules/records/transitions.js';
import { ticketLog } from '../../src/modules/tickets/tickets.service.js';
import { TRIPS } from '../../src/modules/trips/trips.definition.js';
import { historyLine, type HistoryWords } from '../../web/src/panel/history.js';

/**
 * The panel's history entries in the reader's words, from each entry's event and data: every event the service
 * logs, in pt-BR, with no id and no English left. The entries are the service's own (its builders where they are
 * exported, else as it writes them); an entry logged before entries had data shows its event's word alone.
 */
const catalog = JSON.parse(readFileSync(join(process.cwd(), 'web', 'src', 'messages', 'pt-BR.json'), 'utf8')) as Record<string, string>;
const STATUS: Record<string, string> = {
  SCHEDULED: 'Agendado',
  CHECKED_IN: 'Check-in feito',
  IN_TRANSIT: 'Em trânsito',
  PLANNED: 'Planejada',
};
const pt = {
  language: 'pt-BR',
  t: (key: string, values?: Record<string, string | number>) => String(new IntlMessageFormat(catalog[key], 'pt-BR').format(values)),
  status: (code: string) => STATUS[code] ?? code,
  time: (iso: string) =>
    new Intl.DateTimeFormat('pt-BR', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(iso)),
} as unknown as HistoryWords;
const names = (set: string, ref: string | null | undefined) =>
  set === 'ticket' && ref === 'demo-ticket' ? 'Passe de portão' : (ref ?? '—');

const ID = 'bc7aadae-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
const record = { id: ID, ref: 'A-1', status: 'SCHEDULED', driver_id: ID, terminal_id: ID };
/** The log entry the status table writes for a move. */
const moved = (change: Omit<StatusChange, 'record'> & { record?: object }, def = APPOINTMENTS) =>
  planMove(def, { ...change, record: { ...record, ...change.record } })!.log;
const checkin = (outcome: 'accepted' | 'confirmed') =>
  moved({ to: 'CHECKED_IN', via: 'checkin', data: { checkin_id: ID }, facts: { outcome } });
const gateRead = { stage: 'entry', read_id: 'cam-7:991', lane: '2', plate: 'REJ1A23' };

describe('history lines in pt-BR', () => {
  it.each([
    ['appointment', { event: 'created', data: { layout_ref: 'demo-appointment' } }, 'Criado', 'Agendamento criado'],
    ['trip', { event: 'created', data: { layout_ref: 'demo-trip' } }, 'Criado', 'Viagem criada'],
    [
      'appointment',
      { event: 'updated', data: { fields: ['license_plate', 'window_start'] } },
      'Atualizado',
      'Alterado: placa e início da janela',
    ],
    [
      'appointment',
      { event: 'checkin_requested', data: { checkin_id: ID, source: 'driver' } },
      'Check-in solicitado',
      'Check-in solicitado pelo motorista',
    ],
    [
      'appointment',
      { event: 'checkin_requested', data: { checkin_id: ID, source: 'plate', read_id: 'cam-7:991' } },
      'Check-in solicitado',
      'Check-in solicitado por uma leitura de placa',
    ],
    [
      'appointment',
      { event: 'checkin_requested', data: { checkin_id: ID, source: 'driver', resumed: true } },
      'Check-in solicitado',
      'Check-in retomado após uma interrupção',
    ],
    [
      'appointment',
      { event: 'checkin_rejected', data: { checkin_id: ID, outcome: 'rejected', reason: 'Placa não autorizada neste portão.' } },
      'Check-in recusado',
      'O terminal recusou o check-in: Placa não autorizada neste portão.',
    ],
    [
      'appointment',
      { event: 'checkin_failed', data: { checkin_id: ID, outcome: 'offline', reason: 'The terminal server is not connected' } },
      'Check-in falhou',
      'O servidor do terminal não estava conectado',
    ],
    [
      'appointment',
      {
        event: 'checkin_failed',
        data: { checkin_id: ID, outcome: 'timeout', reason: 'The terminal server did not answer within 5000 ms' },
      },
      'Check-in falhou',
      'O servidor do terminal não respondeu a tempo',
    ],
    [
      'appointment',
      { event: 'checkin_failed', data: { checkin_id: ID, outcome: 'failed', reason: "The terminal server's answer is unusable" } },
      'Check-in falhou',
      'A resposta do terminal não pôde ser usada',
    ],
    [
      'appointment',
      { event: 'checkin_joined', data: { checkin_id: ID, joined_checkin_id: ID, outcome: 'accepted' } },
      'Check-in com leitura de placa',
      'Seguiu o check-in de uma leitura de placa, aceito pelo terminal',
    ],
    ['appointment', checkin('accepted'), 'Check-in feito', 'Check-in aceito pelo servidor do terminal'],
    ['appointment', checkin('confirmed'), 'Check-in feito', 'Check-in confirmado pelo terminal'],
    [
      'trip',
      moved({ record: { status: 'IN_TRANSIT' }, to: 'CHECKED_IN', via: 'arrival', data: { checkin_id: ID } }, TRIPS),
      'Check-in feito',
      'Chegou ao portão do terminal',
    ],
    ['trip', moved({ record: { status: 'PLANNED' }, to: 'IN_TRANSIT', via: 'put' }, TRIPS), 'Em trânsito', 'Planejada → Em trânsito'],
    [
      'appointment',
      moved({ record: { status: 'CHECKED_IN' }, to: 'ON_GOING', via: 'put', facts: gateRead }),
      'Em andamento',
      'Placa REJ1A23 lida na entrada, faixa 2',
    ],
    ['appointment', { event: 'arrived', data: { ...gateRead, stage: 'arrival' } }, 'No portão', 'Placa REJ1A23 lida na chegada, faixa 2'],
    [
      'appointment',
      { event: 'no_show', data: { admissible_until: '2026-11-29T11:55:17Z' } },
      'Não compareceu',
      'Sem check-in até 29 de nov. de 2026, 11:55, o fim da janela admitida',
    ],
    [
      'appointment',
      ticketLog({ id: ID, layout_ref: 'demo-ticket' }, 'created'),
      'Ticket emitido',
      'Ticket criado (layout Passe de portão)',
    ],
    ['appointment', ticketLog({ id: ID, layout_ref: 'other' }, 'deleted'), 'Ticket retirado', 'Ticket retirado (layout other)'],
    [
      'appointment',
      { event: 'scheduled', data: { from: 'CHECKED_IN', to: 'SCHEDULED', via: 'put' } },
      'Agendado',
      'Check-in feito → Agendado',
    ],
    ['appointment', { event: 'something_new', data: { what: ID } }, 'Registro', null],
    // Logged before entries had data: the event's word alone, whatever the English message says.
    ['appointment', { event: 'checked_in', message: `Check-in ${ID} accepted by the terminal server`, data: null }, 'Check-in feito', null],
    ['appointment', { event: 'ticket_created', message: `Ticket ${ID} created (layout demo-ticket)` }, 'Ticket emitido', null],
  ] as const)('%s entry %#: %s', (noun, entry, title, detail) => {
    const line = historyLine(pt, noun, entry, names);
    expect(line).toEqual({ title, detail });
    expect(`${line.title} ${line.detail ?? ''}`).not.toMatch(
      /[0-9a-f]{8}-[0-9a-f]{4}-|\d{4}-\d\d-\d\dT|\b(created|accepted|requested|terminal server|by the|lane|plate)\b/,
    );
  });
});
