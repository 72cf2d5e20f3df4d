import 'reflect-metadata';
import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface.js';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { NestFactory } from '@nestjs/core';
import type { Logger } from 'pino';
import { AppModule } from './app.module.js';
import { accessLog } from './common/http/access-log.middleware.js';
import { foregroundRequests } from './common/http/foreground.middleware.js';
import { auditScope } from './common/http/audit-scope.middleware.js';
import { compileTrust } from './common/http/client-address.js';
import { jsonBodyParser } from './common/http/body-parser.js';
import { requestIdMiddleware } from './common/http/request-id.middleware.js';
import { noSniff } from './common/http/security-headers.js';
import { webPages } from './common/http/web-pages.js';
import { mountOpenApi } from './common/docs/openapi.js';
import { createLogger, PinoNestLogger } from './common/logging/logger.js';
import { Foreground } from './common/scheduling/foreground.js';
import type { AppConfig } from './config/config.js';
import { openDatabase, type Database } from './database/data-source.js';
import { MetricsService } from './modules/metrics/metrics.service.js';
import { ENTITIES } from './entities.js';
import { buildAsyncApi } from './realtime/asyncapi.js';
import { GateIoAdapter } from './realtime/gate-io.adapter.js';

export interface GateApp {
  app: NestExpressApplication;
  database: Database;
  logger: Logger;
}

/** CORS_ORIGINS on HTTP: the headers clients send and read; no credentials, as keys and tokens travel in headers. */
function httpCors(origin: '*' | string[]): CorsOptions {
  return {
    origin,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['X-API-Key', 'Authorization', 'Content-Type', 'X-Request-Id', 'Idempotency-Key'],
    exposedHeaders: ['X-Request-Id', 'Retry-After', 'Idempotent-Replayed'],
    credentials: false,
  };
}

/** Opens and migrates the store, then builds the HTTP app; `main.ts` and the tests both start here. */
export async function createApp(config: AppConfig, logger: Logger = createLogger(config.logLevel)): Promise<GateApp> {
  const database = openDatabase(config, ENTITIES);
  try {
    await database.dataSource.initialize();
    const applied = await database.dataSource.runMigrations({ transaction: 'each' });
    if (applied.length) logger.info({ migrations: applied.map((m) => m.name) }, 'migrations applied');

    const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot({ config, database, logger }), {
      bodyParser: false,
      logger: new PinoNestLogger(logger),
    });
    // The client's address (req.ip), host and protocol as the proxies TRUST_PROXY names report them.
    app.set('trust proxy', compileTrust(config.trustProxy));
    app.disable('x-powered-by');
    const foreground = app.get(Foreground);
    app.use(noSniff, requestIdMiddleware, foregroundRequests(foreground), accessLog(logger, app.get(MetricsService)));
    // Ahead of the routes, so every answer (errors included) carries the headers; preflights still get a request id and a log line.
    if (config.corsOrigins) app.enableCors(httpCors(config.corsOrigins));
    app.use(jsonBodyParser(), auditScope);
    const pages = webPages();
    if (pages) app.use(pages);
    app.useWebSocketAdapter(new GateIoAdapter(app, { url: config.redisUrl, prefix: config.redisPrefix }, config.corsOrigins, foreground));
    mountOpenApi(app, config.port, buildAsyncApi);
    await app.init();
    return { app, database, logger };
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
}
