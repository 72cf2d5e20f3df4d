import { isoSql } from '../events/event-sql.js';

/**
 * SQL of a ticket (alias `t`) with its appointment (alias `a`) as the tickets query shows it, as jsonb: the data of
 * its events, and the tickets a check-in answers.
 */
export const ticketViewSql = (t: string, a: string) =>
  `jsonb_build_object('id', ${t}.id, 'appointment_id', ${t}.appointment_id, 'appointment_ref', ${a}.ref, 'terminal_id', ${t}.terminal_id,
                      'layout_ref', ${t}.layout_ref, 'content', ${t}.content,
                      'created_at', ${isoSql(`${t}.created_at`)}, 'updated_at', ${isoSql(`${t}.updated_at`)})`;
