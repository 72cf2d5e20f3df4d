import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { AppError } from '../errors/app-error.js';
import { validatePlain } from './validate.js';

const PRIMITIVES = new Set<unknown>([String, Number, Boolean, Array, Object, undefined]);

/** Validates `@Body()` and `@Query()` parameters typed with a DTO class; issues become VALIDATION_ERROR. */
@Injectable()
export class DtoValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if ((metadata.type !== 'body' && metadata.type !== 'query') || PRIMITIVES.has(metadata.metatype)) return value;
    const result = validatePlain(metadata.metatype as new () => object, value ?? {});
    if (!result.value) throw AppError.validation(result.issues);
    return result.value;
  }
}
