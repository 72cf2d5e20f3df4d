import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

/** Where request timings go (the metrics service). */
export interface RequestObserver {
  observeRequest(method: string, route: string, status: number, seconds: number): void;
}

/**
 * One JSON log line and one metrics sample per request, written when the response is finished. A read that
 * succeeded (GET or HEAD below 400: the panel's pages, a partner's polling) is logged at debug level, so the log at
 * info says what changed and what failed; every request is still counted in the metrics.
 */
export function accessLog(logger: Logger, metrics: RequestObserver): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // Express types the matched route as `any`; its path is the route as declared.
      const declared = (req.route as { path?: string } | undefined)?.path;
      const route = declared ? `${req.baseUrl}${declared}` : 'unmatched';
      metrics.observeRequest(req.method, route, res.statusCode, seconds);
      const quiet = (req.method === 'GET' || req.method === 'HEAD') && res.statusCode < 400;
      logger[quiet ? 'debug' : 'info'](
        {
          requestId: req.requestId,
          method: req.method,
          url: req.originalUrl,
          status: res.statusCode,
          ms: Math.round(seconds * 1000 * 10) / 10,
          accountId: req.principal?.accountId ?? undefined,
          userId: req.principal?.user?.id,
        },
        'request',
      );
    });
    next();
  };
}
