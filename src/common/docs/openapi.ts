import type { INestApplication } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import {
  DocumentBuilder,
  type HeaderObject,
  type OpenAPIObject,
  type OperationObject,
  type ReferenceObject,
  SwaggerModule,
} from '@nestjs/swagger';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_MAX,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENT_METHODS,
  IDEMPOTENT_PREFIX,
  KEPT_FOR_HOURS,
  REPLAYED_HEADER,
} from '../http/idempotency-key.js';
import { addApiErrors } from './api-responses.js';
import { API_KEY_SCHEME, DRIVER_TOKEN_SCHEME, REQUIREMENT_EXTENSION, SESSION_SCHEME } from './security-schemes.js';
import { GUIDE_CSS, guideUrl, loadGuide } from './guide.js';
import { contentSecurityPolicy, setPageHeaders } from '../http/security-headers.js';

export function buildOpenApi(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Gate service')
    .setDescription(
      'Trips, appointments, check-in and digital tickets for carriers, terminals and drivers.\n\n' +
        'Every call carries `X-API-Key` (use **Authorize**). Success answers `{"success": true, "data": …}`; ' +
        'errors answer `{"success": false, "error": {"code", "message", "details?"}}` with the codes listed per endpoint. ' +
        'Every response carries `X-Request-Id` (send your own to correlate).\n\n' +
        `Every POST, PUT and DELETE takes an \`${IDEMPOTENCY_KEY_HEADER}\` header that makes a retry safe: the first answer is kept ` +
        `${KEPT_FOR_HOURS} h and sent again, with \`${REPLAYED_HEADER}: true\` ([idempotency](${guideUrl('idempotency')})).\n\n` +
        'The real-time channel (Socket.IO namespaces /terminal and /driver, the check-in handshake and the driver feed) is described ' +
        'in AsyncAPI at [/asyncapi.json](/asyncapi.json).\n\n' +
        `The guide: [statuses and their moves](${guideUrl('statuses')}), [errors, their order and the validation rules](${guideUrl('errors')}), ` +
        `[the check-in protocol and the driver feed](${guideUrl('checkin')}), [driver tokens and what they see](${guideUrl('driver-tokens')}), ` +
        `[Idempotency-Key and retries](${guideUrl('idempotency')}).`,
    )
    .setVersion('1')
    // Relative: the API is served beside its document, whatever host and port that is.
    .addServer('/', 'This service')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An account API key' }, API_KEY_SCHEME)
    .addCookieAuth(
      'gate_session',
      {
        type: 'apiKey',
        in: 'cookie',
        name: 'gate_session',
        description:
          'A person signed in (POST /api/v1/sessions): the browser sends the cookie; every change also carries X-CSRF-Token. ' +
          `[People and permissions](${guideUrl('users')})`,
      },
      SESSION_SCHEME,
    )
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A driver token (POST /api/v1/drivers/{tax_id}/tokens)' },
      DRIVER_TOKEN_SCHEME,
    )
    .build();
  const document = SwaggerModule.createDocument(app, config);
  // Not open source, and no public licence page to link to (DocumentBuilder.setLicense would write an empty url).
  document.info.license = { name: 'Proprietary' };
  // Public routes (health, metrics) say so explicitly: `security: []`, rather than leaving generators to guess.
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = item[method];
      if (operation && !operation.security) operation.security = [];
    }
  }
  describeRequirements(document);
  nullableRefs(document.components?.schemas);
  documentIdempotency(document);
  return document;
}

/** What each operation requires of its caller, said in its description as well as in `x-required-permission`. */
function describeRequirements(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation: (OperationObject & { [REQUIREMENT_EXTENSION]?: string }) | undefined = item[method];
      const requirement = operation?.[REQUIREMENT_EXTENSION];
      if (!operation || !requirement) continue;
      const words =
        requirement === 'any'
          ? 'Any key or signed-in person.'
          : requirement === 'session'
            ? 'A person signed in with a session (not a key).'
            : `Requires \`${requirement}\` ([roles](${guideUrl('users', 'roles')})).`;
      operation.description = operation.description ? `${operation.description}\n\n${words}` : words;
    }
  }
}

/** Statuses only ever answered before the key is looked at (credentials, reading the body) or about the key itself: never kept. */
const NEVER_KEPT = new Set(['401', '413', '415', '422', '429']);

/**
 * Every POST, PUT and DELETE under /api/v1 takes Idempotency-Key (docs/idempotency.md): the header parameter,
 * `Idempotent-Replayed` on every answer that can be a kept one (below 500), and the codes a key can answer.
 */
function documentIdempotency(document: OpenAPIObject): void {
  // Inline rather than a component: generated clients then type the header as optional, as it is.
  const replayed: HeaderObject = {
    description: `\`true\` when this is the answer kept for an earlier request with the same ${IDEMPOTENCY_KEY_HEADER}`,
    required: false,
    schema: { type: 'string', enum: ['true'] },
  };
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith(IDEMPOTENT_PREFIX)) continue;
    for (const method of IDEMPOTENT_METHODS) {
      const operation = item[method.toLowerCase() as 'post' | 'put' | 'delete'];
      // A route without credentials (sign-in by code) has no caller to keep answers for.
      if (!operation || operation.security?.length === 0) continue;
      operation.parameters = [
        ...(operation.parameters ?? []),
        {
          name: IDEMPOTENCY_KEY_HEADER,
          in: 'header',
          required: false,
          description:
            `Makes a retry safe: a new value (a UUID) per operation, the same one on each retry of it. The first answer below 500 ` +
            `is kept ${KEPT_FOR_HOURS} h for the caller and sent again to a retry with the same method, path and body, which then ` +
            `writes nothing. [How it works](${guideUrl('idempotency')}).`,
          // No example: Swagger UI would fill it in for every operation, and the second one sent with it would be a mismatch.
          schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, pattern: IDEMPOTENCY_KEY_PATTERN },
        },
      ];
      addApiErrors(operation.responses, 'VALIDATION_ERROR', 'IDEMPOTENCY_KEY_MISMATCH', 'IDEMPOTENCY_KEY_IN_USE');
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!response || Number(status) >= 500 || NEVER_KEPT.has(status) || '$ref' in response) continue;
        const headers: Record<string, HeaderObject | ReferenceObject> = { ...response.headers, [REPLAYED_HEADER]: replayed };
        if (status === '409') {
          headers['Retry-After'] = {
            description: 'With `IDEMPOTENCY_KEY_IN_USE`: seconds to wait before retrying',
            required: false,
            schema: { type: 'integer', minimum: 1 },
          };
        }
        operation.responses[status] = { ...response, headers };
      }
    }
  }
}

/**
 * A nullable property of a model type comes out of @nestjs/swagger as `{nullable, type: object, allOf: [$ref]}`,
 * which a validator reads as "must match the model", refusing null. `anyOf: [$ref, {enum: [null]}]` says what is
 * meant, and openapi-typescript still emits `Model | null`.
 */
function nullableRefs(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach(nullableRefs);
  const schema = node as Record<string, unknown>;
  if (schema.nullable === true && Array.isArray(schema.allOf) && schema.allOf.length === 1 && '$ref' in schema.allOf[0]) {
    schema.anyOf = [schema.allOf[0], { enum: [null] }];
    delete schema.allOf;
  }
  Object.values(schema).forEach(nullableRefs);
}

/**
 * Swagger UI and what it loads: scripts, styles and images from the service (images also as data: URIs, which it
 * draws itself), and its requests (Try it out) to the service only. The page @nestjs/swagger writes has a few inline
 * styles of its own: `styles` allows exactly those, by their hashes (docsPageHeaders).
 */
function docsCsp(styles: { elements: string[]; attributes: string[] } = { elements: [], attributes: [] }): string {
  const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
  const styleSrc = [
    "'self'",
    ...styles.elements.map(hash),
    ...(styles.attributes.length ? ["'unsafe-hashes'", ...styles.attributes.map(hash)] : []),
  ];
  return contentSecurityPolicy(
    "script-src 'self'",
    `style-src ${[...new Set(styleSrc)].join(' ')}`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'none'",
  );
}

/**
 * The page headers on /docs and the documents beside it; Swagger UI's HTML page gets a CSP that also allows its own
 * inline styles (the `<style>` elements and `style` attributes of that HTML, by hash), nothing else inline.
 */
function docsPageHeaders(): RequestHandler {
  const csp = docsCsp();
  const pages = new Map<string, string>();
  return (_req: Request, res: Response, next: NextFunction) => {
    setPageHeaders(res, csp);
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      if (typeof body === 'string' && /^text\/html\b/.test(String(res.get('Content-Type')))) {
        let pageCsp = pages.get(body);
        if (!pageCsp) {
          pageCsp = docsCsp({
            elements: [...body.matchAll(/<style[^>]*>([^]*?)<\/style>/gi)].map((match) => match[1]),
            attributes: [...body.matchAll(/\sstyle="([^"]*)"/gi)].map((match) => match[1]),
          });
          pages.set(body, pageCsp);
        }
        res.setHeader('Content-Security-Policy', pageCsp);
      }
      return send(body);
    };
    next();
  };
}

/**
 * Swagger UI's requestInterceptor, as the browser runs it: a person signed in to the panel in the same browser uses
 * /docs too. The session cookie goes with every request by itself; a change (POST, PUT, PATCH, DELETE) made without an
 * API key also needs the session's CSRF token, which `GET /api/v1/me` answers, so it is fetched and sent as
 * X-CSRF-Token. A request with an API key (Authorize) is left as it is: the key wins over any cookie.
 * Written as the page's JavaScript (not compiled): @nestjs/swagger copies a function option's source into the
 * swagger-ui-init.js it serves, an external script the page's CSP allows; nothing inline.
 */
const CSRF_INTERCEPTOR = `function (request) {
  var headers = request.headers || (request.headers = {});
  var method = String(request.method || 'GET').toUpperCase();
  var keyed = Object.keys(headers).some(function (name) { return name.toLowerCase() === 'x-api-key' && headers[name]; });
  if (keyed || method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return request;
  request.credentials = 'same-origin';
  return fetch('/api/v1/me', { credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'application/json' } })
    .then(function (response) { return response.ok ? response.json() : null; })
    .then(function (body) {
      var token = body && body.data && body.data.csrf_token;
      if (token) headers['X-CSRF-Token'] = token;
      return request;
    }, function () { return request; });
}`;

/** A function option whose source, as @nestjs/swagger writes it into swagger-ui-init.js, is exactly `source`. */
const pageFunction = (source: string): (() => void) => Object.assign(() => undefined, { toString: () => source });

/**
 * Swagger UI at /docs with the API-key button, the document at /docs-json, the AsyncAPI document at /asyncapi.json,
 * and the guide's pages (docs/) at /guide/<page>.md, as HTML.
 */
/** `asyncApi`: the real-time channel's document for a host (src/realtime builds it). */
export function mountOpenApi(app: INestApplication, port: number, asyncApi: (host: string) => object): void {
  const headers = docsPageHeaders();
  for (const path of ['/docs', '/docs-json', '/docs-yaml', '/asyncapi.json', '/guide']) app.use(path, headers);
  // The socket server is the host the document was fetched from (behind a proxy too, one TRUST_PROXY trusts); the configured port without a Host header.
  app
    .getHttpAdapter()
    .get('/asyncapi.json', (request: Request, response: Response) => response.json(asyncApi(request.host || `localhost:${port}`)));
  const guide = loadGuide();
  app.getHttpAdapter().get('/guide/:page', (request: Request, response: Response) => {
    const page = String(request.params.page);
    if (page === 'guide.css') return response.type('text/css; charset=utf-8').setHeader('Cache-Control', 'no-cache').send(GUIDE_CSS);
    const html = guide.get(page);
    if (html === undefined) return response.status(404).json({ success: false, error: { code: 'NOT_FOUND', message: 'No such page' } });
    response
      .setHeader(
        'Content-Security-Policy',
        "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'",
      )
      .setHeader('X-Content-Type-Options', 'nosniff')
      .type('text/html; charset=utf-8')
      .send(html);
  });
  SwaggerModule.setup('docs', app, buildOpenApi(app), {
    jsonDocumentUrl: 'docs-json',
    customSiteTitle: 'Gate service API',
    // The key given to Authorize lives in the page only (not persisted: gone with the tab); the spec is not sent to
    // an outside validator; no top bar (its only content, the Swagger logo, is an SVG with an inline style).
    // A person signed in to the panel: the cookie goes by itself, and changes carry the session's CSRF token.
    swaggerOptions: {
      persistAuthorization: false,
      validatorUrl: null,
      layout: 'BaseLayout',
      requestInterceptor: pageFunction(CSRF_INTERCEPTOR),
    },
  });
}
