import { ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus, Inject } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { LOGGER } from '../logging/logger.js';
import { AppError } from './app-error.js';
import { isDatabaseUnreachable } from './database-errors.js';
import type { ErrorCode } from './error-codes.js';

const HTTP_STATUS_CODES: Partial<Record<number, ErrorCode>> = {
  [HttpStatus.BAD_REQUEST]: 'VALIDATION_ERROR',
  [HttpStatus.UNAUTHORIZED]: 'UNAUTHORIZED',
  [HttpStatus.FORBIDDEN]: 'FORBIDDEN',
  [HttpStatus.NOT_FOUND]: 'NOT_FOUND',
  [HttpStatus.METHOD_NOT_ALLOWED]: 'NOT_FOUND',
  [HttpStatus.PAYLOAD_TOO_LARGE]: 'PAYLOAD_TOO_LARGE',
  [HttpStatus.UNSUPPORTED_MEDIA_TYPE]: 'UNSUPPORTED_MEDIA_TYPE',
  [HttpStatus.TOO_MANY_REQUESTS]: 'RATE_LIMITED',
  [HttpStatus.SERVICE_UNAVAILABLE]: 'SERVICE_UNAVAILABLE',
};

/** Turns anything thrown while handling an HTTP request into the one error envelope (docs/errors.md). */
export function toAppError(exception: unknown): AppError | null {
  if (exception instanceof AppError) return exception;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const code = HTTP_STATUS_CODES[status];
    if (code === 'NOT_FOUND') return new AppError('NOT_FOUND', 'No such route');
    if (code) return new AppError(code, exception.message);
    return null;
  }
  if (isDatabaseUnreachable(exception)) {
    return new AppError('SERVICE_UNAVAILABLE', 'The database is unreachable; try again shortly', undefined, { 'Retry-After': '5' });
  }
  return null;
}

@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();
    const requestId = request.requestId;

    let error = toAppError(exception);
    if (!error) {
      this.logger.error({ requestId, err: exception, method: request.method, url: request.originalUrl }, 'unhandled error');
      error = new AppError('INTERNAL_ERROR', `Internal error; quote request id ${requestId} when reporting it`);
    } else if (error.code === 'SERVICE_UNAVAILABLE') {
      this.logger.warn({ requestId, err: exception }, 'database unreachable');
    }
    if (response.headersSent) return;
    for (const [name, value] of Object.entries(error.headers ?? {})) response.setHeader(name, value);
    response.status(error.status).json({
      success: false,
      error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
    });
  }
}
