import { Inject, Injectable, mixin, type PipeTransform, type Type } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { type ItemParser, parseBatch } from './batch-input.js';

/** A write's items, validated, with where each sat in the body (for errors found later, against stored data). */
export interface Batch<T> {
  items: T[];
  /** `[3].appointment` for the fourth item of an array, `appointment` for a lone object. */
  path: (index: number, within: string) => string;
}

/**
 * `@Body(BatchPipe(parser))`: the one input path of batch writes. The body (one item or an array) is checked in
 * the order of docs/errors.md (EMPTY_PAYLOAD, BATCH_TOO_LARGE, every item's VALIDATION_ERROR at once), then
 * `check` sees the whole batch (repeats, protected fields); the service receives typed items.
 */
export function BatchPipe<T, R = T>(
  parseItem: ItemParser<T>,
  check: (items: T[], batch: Batch<T>) => R[] = (items) => items as unknown as R[],
): Type<PipeTransform> {
  @Injectable()
  class BatchInputPipe implements PipeTransform<unknown, Batch<R>> {
    constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

    transform(body: unknown): Batch<R> {
      const items = parseBatch(body, this.config.maxBatchSize, parseItem);
      const path = (index: number, within: string) => (Array.isArray(body) ? `[${index}].${within}` : within);
      return { items: check(items, { items, path }), path };
    }
  }
  return mixin(BatchInputPipe);
}
