import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { IntlMessageFormat } from 'intl-messageformat';
import {
  actionSentence,
  actorWords,
  AUDIT_ACTIONS,
  type AuditEntryLike,
  type AuditWords,
  changeLines,
  whatWords,
} from '../../web/src/panel/audit-words.js';

/**
 * The audit trail in the panel's words (web/src/panel/audit-words.ts): who, what and the changes of entries as the
 * service writes them (docs/audit.md), in each language, with no id, no ISO string and no code left.
 */
const wordsOf = (language: string): AuditWords => {
  const catalog = JSON.parse(readFileSync(join(process.cwd(), 'web', 'src', 'messages', `${language}.json`), 'utf8')) as Record<
    string,
    string
  >;
  return {
    language,
    t: (key, values) => String(new IntlMessageFormat(catalog[key], language).format(values)),
    status: (code) => (code === 'SCHEDULED' ? 'Agendado' : code === 'CHECKED_IN' ? 'Check-in feito' : code),
    time: (iso) => new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(iso!)),
  };
};
const pt = wordsOf('pt-BR');
const names = (_set: string, ref: string | null | undefined) => (ref === 'demo-ticket' ? 'Passe de portão' : (ref ?? '—'));

const ID = 'bc7aadae-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
/** An entry as the API answers it (its target with its id, which the words never use). */
const entry = (
  action: string,
  target: { type: string; id: string | null; ref: string | null },
  changes: AuditEntryLike['changes'] = null,
): AuditEntryLike => ({
  action,
  target,
  changes,
});

describe('the audit trail in words', () => {
  it('has a sentence for every known action in every language', () => {
    for (const language of ['pt-BR', 'es', 'en']) {
      const words = wordsOf(language);
      const sentences = Object.entries(AUDIT_ACTIONS).flatMap(([resource, verbs]) =>
        verbs.map((verb) => actionSentence(words, `${resource}.${verb}`)),
      );
      expect(sentences.filter((sentence) => sentence === actionSentence(words, 'nothing.known'))).toEqual([]);
      expect(new Set(sentences).size).toBe(sentences.length);
    }
  });

  it.each([
    [{ type: 'user', id: ID, name: 'Ana Souza', email: 'ana@terminal.example' }, 'Ana Souza (ana@terminal.example)'],
    [{ type: 'user', id: null, name: null, email: 'nobody@example.com' }, 'nobody@example.com'],
    [{ type: 'api_key', id: ID, name: 'ERP', key_id: ID }, 'chave «ERP»'],
    [{ type: 'api_key', id: 'bootstrap', name: 'ADMIN_API_KEY' }, 'chave «ADMIN_API_KEY»'],
    [{ type: 'driver', id: ID, name: null, tax_id: '12345678901' }, 'motorista CPF 123.456.789-01'],
    [{ type: 'driver', id: ID, name: null, tax_id: '12345678000190' }, 'motorista CNPJ 12.345.678/0001-90'],
    [{ type: 'terminal', id: ID, name: null, key_id: ID }, 'o servidor do terminal'],
    [{ type: 'terminal', id: ID, name: 'Porto Sul', key_id: ID }, 'o servidor de Porto Sul'],
    [{ type: 'system', id: null, name: 'no-show sweep' }, 'o serviço (marcação de não comparecimentos)'],
    [{ type: 'system', id: null, name: null }, 'o serviço'],
  ])('names the actor %o', (actor, words) => {
    expect(actorWords(pt, actor)).toBe(words);
  });

  it.each([
    [entry('appointment.updated', { type: 'appointment', id: ID, ref: 'APPT-1' }), 'alterou o agendamento APPT-1'],
    [entry('session.created', { type: 'session', id: ID, ref: null }), 'entrou'],
    [
      entry('session.failed', { type: 'user', id: null, ref: 'ana@terminal.example' }, { reason: [null, 'wrong_password'] }),
      'não conseguiu entrar (senha errada)',
    ],
    [entry('api_key.revoked', { type: 'api_key', id: ID, ref: 'ERP' }), 'revogou a chave «ERP»'],
    [entry('ticket.created', { type: 'ticket', id: ID, ref: 'demo-ticket' }), 'emitiu o ticket «Passe de portão»'],
    [entry('checkin.accepted', { type: 'checkin', id: ID, ref: null }), 'aceitou um check-in'],
    [entry('user.role_changed', { type: 'user', id: ID, ref: 'ana@terminal.example' }), 'mudou o perfil de ana@terminal.example'],
    [entry('trip.something_new', { type: 'trip', id: ID, ref: 'T-1' }), 'fez uma alteração (Viagens) T-1'],
  ])('says what %#: %s', (logged, words) => {
    expect(whatWords(pt, logged, names)).toBe(words);
  });

  it('says the changes as "field: before → after", in words, hiding ids and withheld values', () => {
    const lines = changeLines(
      pt,
      entry(
        'appointment.updated',
        { type: 'appointment', id: ID, ref: 'A-1' },
        {
          license_plate: ['ABC1D23', 'XYZ9K87'],
          window_start: ['2026-11-29T14:00:00+00:00', '2026-11-29T15:00:00+00:00'],
          status: ['SCHEDULED', 'CHECKED_IN'],
          driver_id: [ID, 'f0e1d2c3-b4a5-4697-8879-6a5b4c3d2e1f'],
          password_hash: ['[withheld]', '[withheld]'],
          role: ['viewer', 'planner'],
          summary: [null, 'Berço 4'],
        },
      ),
    );
    expect(lines).toEqual([
      { field: 'Placa', values: 'ABC1D23 → XYZ9K87' },
      { field: 'Início da janela', values: '29 de nov. de 2026, 14:00 → 29 de nov. de 2026, 15:00' },
      { field: 'Status', values: 'Agendado → Check-in feito' },
      { field: 'Motorista', values: null },
      { field: 'Senha', values: 'oculto → oculto' },
      { field: 'Perfil', values: 'Leitor → Planejador' },
      { field: 'Resumo', values: '— → Berço 4' },
    ]);
    // A refused sign-in's reason is said by its sentence, not again as a change.
    expect(changeLines(pt, entry('session.failed', { type: 'user', id: null, ref: 'x@y.z' }, { reason: [null, 'wrong_code'] }))).toEqual(
      [],
    );
  });
});
