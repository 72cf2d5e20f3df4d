import { applyDecorators, type Type } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiResponse, getSchemaPath, type ResponseObject, type ResponsesObject } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from '../errors/error-codes.js';
import { okExample } from './examples.js';

const ERROR_DESCRIPTIONS: Record<ErrorCode, string> = {
  EMPTY_PAYLOAD: 'The body is empty or an empty array',
  INVALID_LAYOUT_REF: 'A layout_ref does not exist for the calling account',
  MALFORMED_JSON: 'The body is not valid JSON',
  VALIDATION_ERROR: 'A field is missing, unknown or malformed; details.errors[].path locates it',
  BATCH_TOO_LARGE: 'More items than MAX_BATCH_SIZE',
  PROTECTED_FIELD: 'An update tried to change a protected field',
  UNAUTHORIZED: 'X-API-Key (or the session cookie, or the driver token) missing, unknown, revoked or expired',
  SIGN_IN_CODE_INVALID: 'The sign-in code is wrong, was used already or has expired (counted as a failed authentication)',
  INVALID_CREDENTIALS: 'Wrong email or password (or TOTP code), or a deactivated user: the same answer either way',
  MFA_REQUIRED: 'The password is right and the user has two-factor authentication on: send totp (or a recovery code)',
  SSO_REQUIRED: "The password is right but the user's account signs in only through its identity provider (GET /sso/start)",
  FORBIDDEN:
    "The caller's account kind or role does not allow this (details.required names the permission), or no capacity rule of the terminal lets this carrier book",
  CSRF_TOKEN_INVALID: 'A change made with the session cookie without its csrf_token in X-CSRF-Token, or with a wrong one',
  MFA_SETUP_REQUIRED:
    'The account requires two-factor authentication and the user has none: the session may only set it up (POST /api/v1/me/mfa)',
  NOT_FOUND: 'No such route or resource',
  REFS_NOT_FOUND: 'Some refs do not exist for the calling account',
  APPOINTMENT_NOT_FOUND: 'appointment_ref does not exist for the calling terminal',
  TICKETS_NOT_FOUND: 'Some ticket ids do not exist for the calling terminal',
  DUPLICATE_KEY: 'A ref already exists or repeats within the batch',
  INVALID_STATUS_TRANSITION: 'The status cannot move that way',
  LAYOUT_IN_USE: 'A live record still uses the layout',
  IDEMPOTENCY_KEY_MISMATCH: 'The Idempotency-Key was first used with another method, path or body',
  IDEMPOTENCY_KEY_IN_USE: 'The first request with this Idempotency-Key is still running; see Retry-After',
  PAYLOAD_TOO_LARGE: 'The body exceeds 10 MB',
  UNSUPPORTED_MEDIA_TYPE: 'The body is not sent as application/json',
  RATE_LIMITED: 'Too many requests for this key, or too many failed authentications from this address; see Retry-After',
  INTERNAL_ERROR: 'Unexpected failure; quote the X-Request-Id',
  SERVICE_UNAVAILABLE: 'The database is unreachable',
  CHECKIN_OUTSIDE_WINDOW: 'Now is outside the appointment window widened by its tolerances',
  CHECKIN_IN_PROGRESS: 'A check-in with this checkin_id is still waiting for the terminal',
  CHECKIN_REJECTED: 'The terminal server refused the check-in; details.reason says why',
  CHECKIN_FAILED: "The terminal server's answer could not be used (for example a ticket with an unknown layout)",
  TERMINAL_OFFLINE: 'The terminal server is not connected',
  TERMINAL_TIMEOUT: 'The terminal server did not answer within CHECKIN_TIMEOUT_MS',
  WEBHOOK_NOT_FOUND: 'No webhook with this id belongs to the calling account',
  WEBHOOK_URL_NOT_ALLOWED:
    'The URL host is or resolves to a private (loopback, private or other non-public) address, or does not resolve; details.reason says which',
  LAST_OWNER: 'The account would be left without an active owner',
  INVITATION_EXPIRED: 'The invitation is unknown, was used already or has expired',
  SLOT_CLOSED:
    'A window_start falls in a closed slot of a capacity rule (outside open hours, or an exception of capacity 0); details.slots',
  SLOT_FULL: 'A slot of a capacity rule would hold more appointments than its capacity; details.slots',
  QUOTA_EXCEEDED: "A slot would hold more of the carrier's bookings than the rule's carrier_quota allows; details.slots",
  READ_NOT_FOUND: 'The terminal sent no read with this read_id, or its image is not kept (none was sent, or past its retention)',
  REFERRAL_NOT_FOUND: 'No referral with this id belongs to the calling terminal',
  REFERRAL_RESOLVED: 'The referral is closed already (resolved, rejected or expired); details.status',
};

/** Every authenticated route can answer these. */
export const COMMON_ERRORS: ErrorCode[] = [
  'UNAUTHORIZED',
  'CSRF_TOKEN_INVALID',
  'FORBIDDEN',
  'MFA_SETUP_REQUIRED',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
];
/** Every route that reads a JSON body can answer these as well. */
export const BODY_ERRORS: ErrorCode[] = ['MALFORMED_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'VALIDATION_ERROR'];

function errorSchema(codes: ErrorCode[]) {
  return {
    type: 'object',
    required: ['success', 'error'],
    properties: {
      success: { type: 'boolean', enum: [false] },
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', enum: codes },
          message: { type: 'string' },
          details: { type: 'object', additionalProperties: true },
        },
      },
    },
  };
}

/** Documents the error envelope for each code, grouped by HTTP status. */
export function ApiErrors(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return applyDecorators(
    ...[...byStatus].map(([status, group]) =>
      ApiResponse({
        status,
        description: group.map((code) => `\`${code}\`: ${ERROR_DESCRIPTIONS[code]}`).join('; '),
        schema: errorSchema(group),
      }),
    ),
  );
}

/**
 * Adds error codes to an operation of a built document (what ApiErrors does on a route): each joins the error
 * response of its status, which is made when the operation has none.
 */
export function addApiErrors(responses: ResponsesObject, ...codes: ErrorCode[]): void {
  for (const code of codes) {
    const status = String(ERROR_STATUS[code]);
    const line = `\`${code}\`: ${ERROR_DESCRIPTIONS[code]}`;
    const existing = responses[status] as ResponseObject | undefined;
    const schema = existing?.content?.['application/json']?.schema as ReturnType<typeof errorSchema> | undefined;
    const listed = schema?.properties?.error?.properties?.code?.enum;
    if (listed?.includes(code)) continue;
    // A new object: @nestjs/swagger may share one response between the operations of a controller.
    responses[status] = {
      ...existing,
      description: listed ? `${existing!.description}; ${line}` : line,
      content: { 'application/json': { schema: errorSchema([...(listed ?? []), code]) } },
    };
  }
}

/**
 * Documents a success response as the envelope `{success: true, data}` around `model` (or an array of it),
 * with `example` as its data: every success response carries one, checked against the schema by the lint test.
 */
export function ApiEnvelope(
  status: number,
  model: Type<unknown>,
  example: unknown,
  options: { isArray?: boolean; description?: string } = {},
) {
  const data = options.isArray ? { type: 'array', items: { $ref: getSchemaPath(model) } } : { $ref: getSchemaPath(model) };
  return applyDecorators(
    ApiExtraModels(model),
    ApiResponse({
      status,
      description: options.description ?? 'Success',
      schema: { type: 'object', required: ['success', 'data'], properties: { success: { type: 'boolean', enum: [true] }, data } },
      example: okExample(example),
    }),
  );
}

/** A JSON body described by `schema`, with named examples (Swagger UI offers each in a drop-down). */
export function ApiJsonBody(description: string, schema: object, examples: Record<string, { summary: string; value: unknown }>) {
  return ApiBody({ description, required: true, schema, examples });
}
