import { Module } from '@nestjs/common';
import { IdempotencyRepository } from './idempotency.repository.js';
import { IdempotencyService } from './idempotency.service.js';

/**
 * Idempotency-Key (docs/idempotency.md): the keys and their kept answers, and their purge. The interceptor
 * that applies them to every POST, PUT and DELETE under /api/v1 is registered by the app module, after
 * RequestInputInterceptor.
 */
@Module({
  providers: [IdempotencyRepository, IdempotencyService],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
