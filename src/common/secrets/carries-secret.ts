import { applyDecorators, type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import type { Observable } from 'rxjs';
import { guideUrl } from '../docs/guide.js';

/**
 * Answers that carry a secret: a new API key, a webhook signing secret, a driver token. Such a secret is shown
 * once, in the answer that made it, and is never at rest in the clear (docs/idempotency.md#answers-that-carry-a-secret):
 *
 * - the answer goes out with `Cache-Control: no-store` (SecretAnswersInterceptor), so no cache keeps it;
 * - kept for an Idempotency-Key, it is kept without the secret (`withoutSecrets`), and a replay says so in a
 *   `withheld` note next to `data` (`withWithheldNote`), with what to do instead (rotate, mint another).
 *
 * A route opts in with one decorator, `@CarriesSecret({fields, instead})`, which also documents both in its
 * OpenAPI operation. A new route that answers a secret needs that decorator and nothing else.
 */
export interface SecretAnswer {
  /** The properties of the answer's `data` that hold a secret. */
  fields: readonly string[];
  /**
   * What a client whose first answer never arrived does instead, ending the replay's note: "rotate it: POST …".
   * Absent for a route that takes no Idempotency-Key (nothing is ever kept, so there is no replay to explain).
   */
  instead?: string;
}

const SecretAnswerOf = Reflector.createDecorator<SecretAnswer>();

/**
 * How a secret field's OpenAPI description ends: `nullable: true` on the wire, for replays only. Its TypeScript
 * type stays `string`: the service always makes one; only the kept copy loses it.
 */
export const NULL_WHEN_REPLAYED = 'null in a replayed answer (`Idempotent-Replayed: true`), which never holds it';

/** The route's SecretAnswer, or undefined for a route that answers no secret. */
export function secretAnswerOf(reflector: Reflector, context: ExecutionContext): SecretAnswer | undefined {
  return reflector.get(SecretAnswerOf, context.getHandler());
}

// @nestjs/swagger's metadata keys (its DECORATORS, not exported): CarriesSecret fails at start-up if they change.
const API_RESPONSE = 'swagger/apiResponse';
const API_OPERATION = 'swagger/apiOperation';

/**
 * Marks a route whose success answer carries a secret in `data.<fields>`: no-store, never kept, documented.
 * Put it above the route's @ApiOperation and @ApiEnvelope (decorators apply bottom-up; it amends theirs).
 */
export function CarriesSecret(answer: SecretAnswer): MethodDecorator {
  return applyDecorators(SecretAnswerOf(answer), documentSecret(answer));
}

/** The replay's note: which fields are withheld (of the route's), and what to do instead. */
const withheldSchema = (fields: readonly string[]) => ({
  type: 'object',
  required: ['fields', 'message'],
  description: 'Only in a replayed answer (`Idempotent-Replayed: true`): the secret was shown in the first answer only and is not kept',
  properties: {
    fields: { type: 'array', items: { type: 'string', enum: fields }, description: 'The properties of `data` withheld (null here)' },
    message: { type: 'string' },
  },
});

/** A response as @nestjs/swagger keeps it in its metadata: the parts amended here typed, the rest carried as is. */
type DocumentedResponse = { headers?: Record<string, unknown>; schema?: { properties?: Record<string, unknown> }; [key: string]: unknown };

function documentSecret(answer: SecretAnswer): MethodDecorator {
  const fields = answer.fields.map((field) => `\`${field}\``).join(', ');
  return (_target, method, descriptor) => {
    const handler = descriptor.value as object;
    const operation = Reflect.getMetadata(API_OPERATION, handler) as { description?: string } | undefined;
    const responses = Reflect.getMetadata(API_RESPONSE, handler) as Record<string, DocumentedResponse> | undefined;
    const success = Object.keys(responses ?? {}).filter((status) => status.startsWith('2'));
    if (!operation || success.length === 0)
      throw new Error(`@CarriesSecret on ${String(method)}: put it above the route's @ApiOperation and @ApiEnvelope`);
    const note =
      `**Carries a secret** (${fields}): answered with \`Cache-Control: no-store\` and never kept.` +
      (answer.instead
        ? ` With an Idempotency-Key, a replay answers ${fields} as null with a \`withheld\` note: if the first answer never ` +
          `reached you, ${answer.instead}. [Why](${guideUrl('idempotency', 'answers-that-carry-a-secret')}).`
        : '');
    Reflect.defineMetadata(
      API_OPERATION,
      { ...operation, description: [operation.description, note].filter(Boolean).join('\n\n') },
      handler,
    );
    const amended = { ...responses };
    for (const status of success) {
      const response = responses![status];
      amended[status] = {
        ...response,
        headers: {
          ...response.headers,
          'Cache-Control': {
            description: 'The answer carries a secret: no cache may keep it',
            schema: { type: 'string', enum: ['no-store'] },
          },
        },
        schema: answer.instead
          ? { ...response.schema, properties: { ...response.schema?.properties, withheld: withheldSchema(answer.fields) } }
          : response.schema,
      };
    }
    Reflect.defineMetadata(API_RESPONSE, amended, handler);
  };
}

/** `Cache-Control: no-store` on every answer of a route marked @CarriesSecret, its errors and replays included. */
@Injectable()
export class SecretAnswersInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http' && secretAnswerOf(this.reflector, context))
      context.switchToHttp().getResponse<Response>().setHeader('Cache-Control', 'no-store');
    return next.handle();
  }
}

type Parsed = { success?: unknown; data?: unknown; withheld?: unknown };
const dataOf = (parsed: Parsed): Record<string, unknown> | null =>
  parsed.success === true && parsed.data !== null && typeof parsed.data === 'object' && !Array.isArray(parsed.data)
    ? (parsed.data as Record<string, unknown>)
    : null;

function parse(body: string): Parsed | null {
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed !== null && typeof parsed === 'object' ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * A body as it may be kept: the secret fields of a success answer's `data` set to null. Nothing else changes
 * (an error answer carries no secret); a body that cannot be read as JSON is not kept at all (null).
 */
export function withoutSecrets(body: string | null, answer: SecretAnswer): string | null {
  if (body === null) return null;
  const parsed = parse(body);
  if (!parsed) return null;
  const data = dataOf(parsed);
  if (!data) return body;
  for (const field of answer.fields) if (field in data) data[field] = null;
  return JSON.stringify(parsed);
}

/** A kept body as a replay sends it: with a `withheld` note when secret fields of its `data` are null. */
export function withWithheldNote(body: string | null, answer: SecretAnswer): string | null {
  const parsed = body === null ? null : parse(body);
  const data = parsed && dataOf(parsed);
  const withheld = data ? answer.fields.filter((field) => field in data && data[field] === null) : [];
  if (!parsed || withheld.length === 0) return body;
  const names = withheld.join(', ');
  parsed.withheld = {
    fields: withheld,
    message: `Not kept: ${names} ${withheld.length === 1 ? 'was' : 'were'} shown in the first answer only. If it did not reach you, ${answer.instead}.`,
  };
  return JSON.stringify(parsed);
}
