import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import type { ApiQueryOptions } from '@nestjs/swagger';
import { AppError, type ValidationIssue } from '../errors/app-error.js';

/**
 * What a QueryListPipe hands over: the values in the order given. An interface rather than `string[]` so that
 * the parameter's reflected type is Object and Swagger documents the pipe's schema (`describe`) rather than
 * an array of any strings.
 */
export interface QueryList extends Array<string> {
  [index: number]: string;
}

/**
 * `@Query(name, pipe) values: QueryList`: a repeated query parameter (`?refs=a&refs=b`) as a list of
 * 1..`max` strings of 1..`maxLength` characters; issues name the parameter. `@ApiQuery(pipe.describe(name))`
 * documents the same limits.
 */
export class QueryListPipe implements PipeTransform<unknown, QueryList> {
  constructor(
    readonly max: number,
    readonly maxLength: number,
  ) {}

  describe(name: string): ApiQueryOptions {
    const { max, maxLength } = this;
    return {
      name,
      required: true,
      description: `Repeat per ref: ?${name}=A&${name}=B (1 to ${max})`,
      schema: { type: 'array', items: { type: 'string', minLength: 1, maxLength }, minItems: 1, maxItems: max },
      style: 'form',
      explode: true,
    };
  }

  transform(value: unknown, { data: name = 'query' }: ArgumentMetadata): QueryList {
    const { max, maxLength } = this;
    const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
    if (values.length === 0) throw AppError.validation([{ path: name, message: `give at least one ${name} value (?${name}=…)` }]);
    if (values.length > max)
      throw AppError.validation([{ path: name, message: `at most ${max} values per request, got ${values.length}` }]);
    const issues: ValidationIssue[] = [];
    values.forEach((item, i) => {
      if (typeof item !== 'string' || item.length < 1 || item.length > maxLength) {
        issues.push({ path: `${name}[${i}]`, message: `must be a string of 1 to ${maxLength} characters` });
      }
    });
    if (issues.length) throw AppError.validation(issues);
    return values as QueryList;
  }
}
