/** The one code→status table (docs/errors.md). Every error the service answers carries one of these codes. */
export const ERROR_STATUS = {
  EMPTY_PAYLOAD: 400,
  INVALID_LAYOUT_REF: 400,
  MALFORMED_JSON: 400,
  VALIDATION_ERROR: 400,
  BATCH_TOO_LARGE: 400,
  PROTECTED_FIELD: 400,
  UNAUTHORIZED: 401,
  // A driver's sign-in code (docs/driver-tokens.md#sign-in-by-code) that is wrong, used already or expired.
  SIGN_IN_CODE_INVALID: 401,
  // Signing in (docs/users.md#sessions): wrong email or password (or TOTP code), a TOTP code needed, SSO required.
  INVALID_CREDENTIALS: 401,
  MFA_REQUIRED: 401,
  SSO_REQUIRED: 401,
  FORBIDDEN: 403,
  // A session's write without its CSRF token; a session that must set MFA up before anything else.
  CSRF_TOKEN_INVALID: 403,
  MFA_SETUP_REQUIRED: 403,
  NOT_FOUND: 404,
  REFS_NOT_FOUND: 404,
  APPOINTMENT_NOT_FOUND: 404,
  TICKETS_NOT_FOUND: 404,
  DUPLICATE_KEY: 409,
  INVALID_STATUS_TRANSITION: 409,
  LAYOUT_IN_USE: 409,
  // Idempotency-Key (docs/idempotency.md): the key was used for another request, or its first request still runs.
  IDEMPOTENCY_KEY_MISMATCH: 422,
  IDEMPOTENCY_KEY_IN_USE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  // The check-in handshake (docs/checkin.md); over the socket they come in the ack's error envelope.
  CHECKIN_OUTSIDE_WINDOW: 409,
  CHECKIN_IN_PROGRESS: 409,
  CHECKIN_REJECTED: 409,
  CHECKIN_FAILED: 502,
  TERMINAL_OFFLINE: 503,
  TERMINAL_TIMEOUT: 504,
  // Webhooks (docs/webhooks.md): another account's webhook is not found either; a URL that reaches private addresses.
  WEBHOOK_NOT_FOUND: 404,
  WEBHOOK_URL_NOT_ALLOWED: 400,
  // Capacity (docs/capacity.md): a slot that is closed, full, or holds this carrier's share already.
  SLOT_CLOSED: 409,
  SLOT_FULL: 409,
  QUOTA_EXCEEDED: 409,
  // Users (docs/users.md): the last active owner of an account; an invitation unknown, used or expired.
  LAST_OWNER: 409,
  INVITATION_EXPIRED: 410,
  // The gate (docs/gate.md): a read (or its image) that is not there; a referral closed already (resolved, rejected or expired).
  READ_NOT_FOUND: 404,
  REFERRAL_NOT_FOUND: 404,
  REFERRAL_RESOLVED: 409,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];
