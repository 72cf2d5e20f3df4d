import { ERROR_STATUS, type ErrorCode } from './error-codes.js';

export interface ValidationIssue {
  /** Where the problem is, from the body's root: `[3].trip.origin_state`, `card_layout[0].color`. */
  path: string;
  message: string;
}

/** The only error services throw; the exception filter turns it into the error envelope. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Extra response headers, such as `Retry-After`. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  static validation(errors: ValidationIssue[]): AppError {
    const first = errors[0];
    const summary = first ? `${first.path ? `${first.path}: ` : ''}${first.message}` : 'invalid input';
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    return new AppError('VALIDATION_ERROR', `Validation failed: ${summary}${more}`, { errors });
  }

  static notFound(what: string, details?: Record<string, unknown>): AppError {
    return new AppError('NOT_FOUND', `${what} not found`, details);
  }
}
