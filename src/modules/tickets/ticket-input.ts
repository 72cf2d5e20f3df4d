import { isUUID } from 'class-validator';
import { dtoItems, type ItemParser } from '../../common/batch/batch-input.js';
import type { Batch } from '../../common/batch/batch.pipe.js';
import { AppError, type ValidationIssue } from '../../common/errors/app-error.js';
import { CreateTicketDto, UpdateTicketDto } from './dto/ticket.dto.js';

/** The input of each write: items validated by the controller's batch pipe. */
export const TICKET_INPUT = {
  create: dtoItems(CreateTicketDto),
  update: dtoItems(UpdateTicketDto),
  /** DELETE bodies: ticket ids; an id sent twice is deleted once. */
  delete: ((raw, path) =>
    typeof raw === 'string' && isUUID(raw)
      ? { value: raw.toLowerCase(), issues: [] }
      : { issues: [{ path, message: 'must be a ticket id (UUID)' }] }) as ItemParser<string>,
};

/** DELETE bodies: an id sent twice is deleted once. */
export const distinctIds = (ids: string[]) => [...new Set(ids)];

/** Update items with their ids lower-cased; an id twice in one batch is a VALIDATION_ERROR. */
export function checkTicketUpdates(items: UpdateTicketDto[], batch: Batch<UpdateTicketDto>): UpdateTicketDto[] {
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  const lowered = items.map((item, i) => {
    const ticket_id = item.ticket_id.toLowerCase();
    if (seen.has(ticket_id)) issues.push({ path: batch.path(i, 'ticket_id'), message: 'appears more than once in this batch' });
    seen.add(ticket_id);
    return { ...item, ticket_id };
  });
  if (issues.length) throw AppError.validation(issues);
  return lowered;
}
