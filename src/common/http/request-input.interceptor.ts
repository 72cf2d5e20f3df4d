import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { AppError } from '../errors/app-error.js';
import { findUnacceptable } from '../validation/json-input.js';

/**
 * Runs after every guard: raises a body that failed to parse (so auth errors come first), then refuses, as
 * VALIDATION_ERROR, input no field can take wherever it hides (body, query, path): too deep, unstorable
 * text, infinite numbers (see findUnacceptable).
 */
@Injectable()
export class RequestInputInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http') {
      const request = context.switchToHttp().getRequest<Request>();
      if (request.bodyError) throw request.bodyError;
      for (const [source, value] of [
        ['', request.body],
        ['query', request.query],
        ['path', request.params],
      ] as const) {
        const issue = findUnacceptable(value);
        if (issue) throw AppError.validation([{ ...issue, path: [source, issue.path].filter(Boolean).join(' ') }]);
      }
    }
    return next.handle();
  }
}
