import type { Type } from '@nestjs/common';
import { getSchemaPath } from '@nestjs/swagger';
import { BatchPipe } from '../../common/batch/batch.pipe.js';
import { BODY_ERRORS } from '../../common/docs/api-responses.js';
import type { ErrorCode } from '../../common/errors/error-codes.js';
import { QueryListPipe } from '../../common/validation/query-list.pipe.js';
import { REF_MAX } from '../../common/validation/validators.js';
import { deleteRefs, distinctRefs } from './record-input.js';
import { MAX_QUERY_REFS } from './records.service.js';

/**
 * What the trips and appointments controllers share: their routes answer alike (interface: Endpoints), so
 * the pipes, error lists and document fragments that are the same for both are written once, here.
 */

/** Examples of one kind of record for the OpenAPI document: two of each so batches show too. */
export interface RecordExamples {
  /** Two create items, `{driver, trip}` or `{driver, appointment}`. */
  create: [object, object];
  /** Two update items, `{ref, trip}` or `{ref, appointment}`. */
  update: [object, object];
  refs: [string, string];
  ids: [string, string];
  /** The first record as the logs query shows it, and its log entries (newest first). */
  logged: object;
  logs: { event: string; message: string; created_at: string; data: Record<string, unknown> | null; actor: object | null }[];
}

/** A write body's schema: one item or a non-empty array of them. */
export const oneOrMany = (item: Type<object>) => ({
  oneOf: [{ $ref: getSchemaPath(item) }, { type: 'array', items: { $ref: getSchemaPath(item) }, minItems: 1 }],
});

/** DELETE bodies: one ref or an array of refs; a ref sent twice is deleted once. */
export const DeleteRefsBody = BatchPipe(deleteRefs, distinctRefs);
export const REFS_BODY = { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }] };

/** `?refs=A&refs=B` of GET …/logs (and `appointment_refs` of GET /tickets): 1 to MAX_QUERY_REFS refs. */
export const REFS_QUERY = new QueryListPipe(MAX_QUERY_REFS, REF_MAX);

export const CREATE_ERRORS: ErrorCode[] = [...BODY_ERRORS, 'EMPTY_PAYLOAD', 'BATCH_TOO_LARGE', 'INVALID_LAYOUT_REF', 'DUPLICATE_KEY'];
export const UPDATE_ERRORS: ErrorCode[] = [
  ...BODY_ERRORS,
  'EMPTY_PAYLOAD',
  'BATCH_TOO_LARGE',
  'PROTECTED_FIELD',
  'INVALID_LAYOUT_REF',
  'REFS_NOT_FOUND',
  'INVALID_STATUS_TRANSITION',
];
export const DELETE_ERRORS: ErrorCode[] = [
  ...BODY_ERRORS,
  'EMPTY_PAYLOAD',
  'BATCH_TOO_LARGE',
  'REFS_NOT_FOUND',
  'INVALID_STATUS_TRANSITION',
];
