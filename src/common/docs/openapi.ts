import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { API_KEY_SCHEME, DRIVER_TOKEN_SCHEME } from '../../modules/auth/auth.decorators.js';
import { buildAsyncApi } from './asyncapi.js';

export function buildOpenApi(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Gate service')
    .setDescription(
      'Trips, appointments, check-in and digital tickets for carriers, terminals and drivers.\n\n' +
        'Every call carries `X-API-Key` (use **Authorize**). Success answers `{"success": true, "data": …}`; ' +
        'errors answer `{"success": false, "error": {"code", "message", "details?"}}` with the codes listed per endpoint. ' +
        'Every response carries `X-Request-Id` (send your own to correlate).\n\n' +
        'The real-time channel (Socket.IO namespaces /terminal and /driver, the check-in handshake and the driver feed) is described ' +
        'in AsyncAPI at [/asyncapi.json](/asyncapi.json).',
    )
    .setVersion('1')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An account API key' }, API_KEY_SCHEME)
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A driver token (POST /api/v1/drivers/{tax_id}/tokens)' },
      DRIVER_TOKEN_SCHEME,
    )
    .build();
  return SwaggerModule.createDocument(app, config);
}

/** Swagger UI at /docs with the API-key button, the document at /docs-json, the AsyncAPI document at /asyncapi.json. */
export function mountOpenApi(app: INestApplication): void {
  const asyncApi = buildAsyncApi();
  app.getHttpAdapter().get('/asyncapi.json', (_request: unknown, response: { json(body: unknown): void }) => response.json(asyncApi));
  SwaggerModule.setup('docs', app, buildOpenApi(app), {
    jsonDocumentUrl: 'docs-json',
    customSiteTitle: 'Gate service API',
    swaggerOptions: { persistAuthorization: true },
  });
}
