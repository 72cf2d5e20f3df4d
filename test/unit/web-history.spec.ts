import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { IntlMessageFormat } from 'intl-messageformat';
import { ticketLogMessage } from '../../src/modules/tickets/tickets.service.js';
import { arrivalMessage } from '../../src/modules/trips/trips.service.js';
import { historyLine, type HistoryWords } from '../../web/src/panel/history.js';

/**
 * The panel's history entries in the reader's words, from each entry's event and the facts its English message
 * carries: every event the service logs, in pt-BR, with no id and no English left. The messages are the service's own
 * (its builders where they are exported, else as it writes them).
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

describe('history lines in pt-BR', () => {
  it.each([
    ['appointment', 'created', 'Appointment created', 'Criado', 'Agendamento criado'],
    ['trip', 'created', 'Trip created', 'Criado', 'Viagem criada'],
    ['appointment', 'updated', 'Updated license_plate, window_start', 'Atualizado', 'Alterado: placa e início da janela'],
    [
      'appointment',
      'checkin_requested',
      `Check-in ${ID} requested by the driver`,
      'Check-in solicitado',
      'Check-in solicitado pelo motorista',
    ],
    [
      'appointment',
      'checkin_rejected',
      `Check-in ${ID}: The terminal refused the check-in: Placa não autorizada neste portão.`,
      'Check-in recusado',
      'O terminal recusou o check-in: Placa não autorizada neste portão.',
    ],
    [
      'appointment',
      'checkin_failed',
      `Check-in ${ID}: The terminal server is not connected`,
      'Check-in falhou',
      'O servidor do terminal não estava conectado',
    ],
    [
      'appointment',
      'checkin_failed',
      `Check-in ${ID}: The terminal server did not answer within 5000 ms`,
      'Check-in falhou',
      'O servidor do terminal não respondeu a tempo',
    ],
    [
      'appointment',
      'checkin_failed',
      `Check-in ${ID}: The terminal server's answer is unusable (no tickets)`,
      'Check-in falhou',
      'A resposta do terminal não pôde ser usada',
    ],
    [
      'appointment',
      'checked_in',
      `Check-in ${ID} accepted by the terminal server`,
      'Check-in feito',
      'Check-in aceito pelo servidor do terminal',
    ],
    ['appointment', 'checked_in', `Check-in ${ID} confirmed by the terminal`, 'Check-in feito', 'Check-in confirmado pelo terminal'],
    ['trip', 'checked_in', arrivalMessage(ID), 'Check-in feito', 'Chegou ao portão do terminal'],
    ['trip', 'in_transit', 'Status changed from PLANNED to IN_TRANSIT', 'Em trânsito', 'Planejada → Em trânsito'],
    [
      'appointment',
      'no_show',
      'No show: not checked in by 2026-11-29T11:55:17Z, the end of its admissible window',
      'Não compareceu',
      'Sem check-in até 29 de nov. de 2026, 11:55, o fim da janela admitida',
    ],
    [
      'appointment',
      'ticket_created',
      ticketLogMessage({ id: ID, layout_ref: 'demo-ticket' }, 'created'),
      'Ticket emitido',
      'Ticket criado (layout Passe de portão)',
    ],
    [
      'appointment',
      'ticket_deleted',
      ticketLogMessage({ id: ID, layout_ref: 'other' }, 'deleted'),
      'Ticket retirado',
      'Ticket retirado (layout other)',
    ],
    ['appointment', 'something_new', 'Something new happened', 'Registro', null],
  ] as const)('%s %s', (noun, event, message, title, detail) => {
    const line = historyLine(pt, noun, { event, message }, names);
    expect(line).toEqual({ title, detail });
    expect(`${line.title} ${line.detail ?? ''}`).not.toMatch(
      /[0-9a-f]{8}-[0-9a-f]{4}-|\b(created|accepted|requested|terminal server|by the)\b/,
    );
  });
});
