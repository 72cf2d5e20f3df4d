import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { AppError } from '../errors/app-error.js';
import { joinPath } from '../validation/validate.js';

const MAX_SCAN_DEPTH = 64;

/** The path of the first string (or key) PostgreSQL cannot store: a NUL character or a lone surrogate. */
function findUnstorableText(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\0') || !value.isWellFormed() ? path : null;
  if (typeof value !== 'object' || value === null || depth > MAX_SCAN_DEPTH) return null;
  for (const [key, child] of Object.entries(value)) {
    const at = joinPath(path, Array.isArray(value) ? Number(key) : key);
    if (key.includes('\0') || !key.isWellFormed()) return at;
    const found = findUnstorableText(child, at, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Runs after every guard: raises a body that failed to parse (so auth errors come first), then refuses
 * text the database cannot store, wherever it hides (body, query, path), as VALIDATION_ERROR instead of a 500.
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
        const path = findUnstorableText(value, '');
        if (path !== null) {
          const where = [source, path].filter(Boolean).join(' ');
          throw AppError.validation([{ path: where, message: 'contains a NUL character or invalid UTF-16 text' }]);
        }
      }
    }
    return next.handle();
  }
}
