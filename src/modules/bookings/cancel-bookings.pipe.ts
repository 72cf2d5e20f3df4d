import { Inject, Injectable, type PipeTransform } from '@nestjs/common';
import { isUUID } from 'class-validator';
import type { Batch } from '../../common/batch/batch.pipe.js';
import { AppError, type ValidationIssue } from '../../common/errors/app-error.js';
import { isPlainObject } from '../../common/validation/json-input.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { deleteRefs, distinctRefs } from '../records/record-input.js';

/** DELETE /api/v1/bookings, checked: the terminal, and the refs as a batch. */
export interface CancelBookings {
  terminalId: string;
  refs: Batch<string>;
}

/**
 * The body `{terminal_id, refs}`, `refs` one ref or an array of them as DELETE /api/v1/appointments takes them,
 * checked in the order of docs/errors.md: EMPTY_PAYLOAD (no body, no refs, or none in the array), BATCH_TOO_LARGE,
 * then every VALIDATION_ERROR at once (paths `terminal_id`, `refs[3]`).
 */
@Injectable()
export class CancelBookingsPipe implements PipeTransform<unknown, CancelBookings> {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  transform(body: unknown): CancelBookings {
    if (body === undefined || body === null || body === '')
      throw new AppError('EMPTY_PAYLOAD', 'The body is empty: send {terminal_id, refs}');
    if (!isPlainObject(body)) throw AppError.validation([{ path: '', message: 'must be a JSON object {terminal_id, refs}' }]);
    const { terminal_id: terminalId, refs, ...unknown } = body;
    const list = Array.isArray(refs) ? refs : refs === undefined || refs === null ? [] : [refs];
    if (list.length === 0) throw new AppError('EMPTY_PAYLOAD', 'refs is empty: send one ref or an array of refs');
    if (list.length > this.config.maxBatchSize) {
      throw new AppError('BATCH_TOO_LARGE', `A batch takes at most ${this.config.maxBatchSize} refs; this one has ${list.length}`, {
        max_batch_size: this.config.maxBatchSize,
        received: list.length,
      });
    }
    const issues: ValidationIssue[] = Object.keys(unknown).map((key) => ({ path: key, message: 'is not a known property' }));
    if (!isUUID(terminalId)) issues.push({ path: 'terminal_id', message: 'terminal_id must be a UUID' });
    const path = (i: number) => (Array.isArray(refs) ? `refs[${i}]` : 'refs');
    list.forEach((ref, i) => issues.push(...deleteRefs(ref, path(i)).issues));
    if (issues.length) throw AppError.validation(issues);
    const items = distinctRefs(list as string[]);
    return {
      terminalId: (terminalId as string).toLowerCase(),
      refs: { items, path: (index, within) => `${path(index)}${within ? `.${within}` : ''}` },
    };
  }
}
