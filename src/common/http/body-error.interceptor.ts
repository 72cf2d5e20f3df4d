import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';

/** Raises a body that failed to parse once every guard has passed: auth errors come before body errors. */
@Injectable()
export class BodyErrorInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http') {
      const { bodyError } = context.switchToHttp().getRequest<Request>();
      if (bodyError) throw bodyError;
    }
    return next.handle();
  }
}
