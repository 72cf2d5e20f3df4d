import type { INestApplication } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { API_KEY_SCHEME, DRIVER_TOKEN_SCHEME } from './security-schemes.js';
import { guideUrl, loadGuide } from './guide.js';

export function buildOpenApi(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Gate service')
    .setDescription(
      'Trips, appointments, check-in and digital tickets for carriers, terminals and drivers.\n\n' +
        'Every call carries `X-API-Key` (use **Authorize**). Success answers `{"success": true, "data": …}`; ' +
        'errors answer `{"success": false, "error": {"code", "message", "details?"}}` with the codes listed per endpoint. ' +
        'Every response carries `X-Request-Id` (send your own to correlate).\n\n' +
        'The real-time channel (Socket.IO namespaces /terminal and /driver, the check-in handshake and the driver feed) is described ' +
        'in AsyncAPI at [/asyncapi.json](/asyncapi.json).\n\n' +
        `The guide: [statuses and their moves](${guideUrl('statuses')}), [errors, their order and the validation rules](${guideUrl('errors')}), ` +
        `[the check-in protocol and the driver feed](${guideUrl('checkin')}), [driver tokens and what they see](${guideUrl('driver-tokens')}).`,
    )
    .setVersion('1')
    // Relative: the API is served beside its document, whatever host and port that is.
    .addServer('/', 'This service')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An account API key' }, API_KEY_SCHEME)
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
  nullableRefs(document.components?.schemas);
  return document;
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
 * Swagger UI at /docs with the API-key button, the document at /docs-json, the AsyncAPI document at /asyncapi.json,
 * and the guide's pages (docs/) at /guide/<page>.md.
 */
/** `asyncApi`: the real-time channel's document for a host (src/realtime builds it). */
export function mountOpenApi(app: INestApplication, port: number, asyncApi: (host: string) => object): void {
  // The socket server is the host the document was fetched from (behind a proxy too: trust proxy is on); the configured port without a Host header.
  app
    .getHttpAdapter()
    .get('/asyncapi.json', (request: Request, response: Response) => response.json(asyncApi(request.host || `localhost:${port}`)));
  const guide = loadGuide();
  app.getHttpAdapter().get('/guide/:page', (request: Request, response: Response) => {
    const text = guide.get(String(request.params.page));
    if (text === undefined) return response.status(404).json({ success: false, error: { code: 'NOT_FOUND', message: 'No such page' } });
    response.type('text/markdown; charset=utf-8').send(text);
  });
  SwaggerModule.setup('docs', app, buildOpenApi(app), {
    jsonDocumentUrl: 'docs-json',
    customSiteTitle: 'Gate service API',
    swaggerOptions: { persistAuthorization: true },
  });
}
