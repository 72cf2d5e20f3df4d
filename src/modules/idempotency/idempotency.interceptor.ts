import { createHash } from 'node:crypto';
import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { type Observable, of } from 'rxjs';
import { AppError } from '../../common/errors/app-error.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_METHODS,
  IDEMPOTENT_PREFIX,
  idempotencyKeyIssue,
  REPLAYED_HEADER,
} from '../../common/http/idempotency-key.js';
import { type SecretAnswer, secretAnswerOf, withoutSecrets, withWithheldNote } from '../../common/secrets/carries-secret.js';
import type { KeptAnswer, KeyOfCaller } from './idempotency.repository.js';
import { IdempotencyService } from './idempotency.service.js';

/**
 * Whose keys these are: a person's (their session or own keys), the account's (its keys; or the bootstrap admin key),
 * or the driver's as the partner's token shows it.
 */
function callerOf(request: Request): string | null {
  const { principal } = request;
  if (principal?.user) return `user:${principal.user.id}`;
  if (principal) return principal.accountId ? `account:${principal.accountId}` : 'admin:bootstrap';
  if (request.driver) return `driver:${request.driver.driverId}:${request.driver.partnerId}`;
  return null;
}

/** SHA-256 of the method, the URL as sent (path and query) and the JSON of the parsed body. */
function fingerprintOf(request: Request): Buffer {
  return createHash('sha256')
    .update(`${request.method}\n${request.originalUrl}\n`)
    .update(request.body === undefined ? '' : JSON.stringify(request.body))
    .digest();
}

/**
 * Idempotency-Key on every POST, PUT and DELETE under /api/v1 (docs/idempotency.md). Runs after the guards
 * (the caller is known) and after RequestInputInterceptor (the body was read). Without the header it does
 * nothing at all. With it: validates the key, claims it (one statement) or finds it, and either replays the
 * kept answer or runs the request and keeps whatever answer goes out, the exception filter's errors included:
 * `res.send` is wrapped for this response only, and stores the answer (one statement) before its bytes leave.
 * On a route marked @CarriesSecret the secret is not kept: the answer is stored without it, and a replay says
 * so (docs/idempotency.md#answers-that-carry-a-secret).
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> | Promise<Observable<unknown>> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<Request>();
    const header = request.headers['idempotency-key'];
    if (header === undefined || !IDEMPOTENT_METHODS.includes(request.method)) return next.handle();
    // The route as declared (Express matches paths case-insensitively, so not the URL as sent).
    if (!String((request.route as { path?: string } | undefined)?.path ?? '').startsWith(IDEMPOTENT_PREFIX)) return next.handle();
    const caller = callerOf(request);
    if (!caller) return next.handle();
    const key = Array.isArray(header) ? header.join(', ') : header;
    const issue = idempotencyKeyIssue(key);
    if (issue) throw AppError.validation([{ path: IDEMPOTENCY_KEY_HEADER, message: issue }]);
    const secret = secretAnswerOf(this.reflector, context);
    return this.keyed(request, context.switchToHttp().getResponse<Response>(), { caller, key }, secret, next);
  }

  private async keyed(request: Request, response: Response, key: KeyOfCaller, secret: SecretAnswer | undefined, next: CallHandler) {
    const begun = await this.idempotency.begin(key, fingerprintOf(request));
    if ('replay' in begun) {
      const { replay } = begun;
      replaceAnswer(response, secret ? { ...replay, body: withWithheldNote(replay.body, secret) } : replay);
      // Nest answers the route's status with no body; replaceAnswer sends the kept answer instead.
      return of(null);
    }
    keepAnswer(response, (answer) =>
      this.idempotency.finish(begun.run, secret ? { ...answer, body: withoutSecrets(answer.body, secret) } : answer),
    );
    return next.handle();
  }
}

type Send = Response['send'];

/** The next `res.send` of this response sends `answer`, whatever Nest asked for, marked as replayed. */
function replaceAnswer(response: Response, answer: KeptAnswer): void {
  const send = response.send;
  response.send = function replay() {
    response.send = send;
    response.status(answer.status);
    if (answer.type) response.setHeader('Content-Type', answer.type);
    response.setHeader(REPLAYED_HEADER, 'true');
    return send.call(response, answer.body ?? undefined);
  } as Send;
}

/**
 * The first `res.send` of this response with its final body (res.json ends there too) hands the answer to
 * `keep`, and the bytes go out once that is done.
 */
function keepAnswer(response: Response, keep: (answer: KeptAnswer) => Promise<void>): void {
  const send = response.send;
  response.send = function capture(body?: unknown) {
    // An object goes through res.json, which comes back here with its text.
    if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body)) return send.call(response, body);
    response.send = send;
    const type = response.getHeader('Content-Type');
    const answer: KeptAnswer = {
      status: response.statusCode,
      type: type === undefined ? null : String(type),
      body:
        body === undefined || body === null ? null : Buffer.isBuffer(body) ? body.toString('utf8') : `${body as string | number | boolean}`,
    };
    void keep(answer).then(() => {
      try {
        send.call(response, body);
      } catch (error) {
        response.destroy(error as Error);
      }
    });
    return response;
  } as Send;
}
