import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { setPageHeaders } from './security-headers.js';

/** The pages the service serves itself: the web panel and the reference driver app (built from web/ into dist/web). */
export const WEB_PAGES = ['panel', 'app'] as const;

/**
 * Scripts, styles and images only from the service; QR codes are data: images drawn in the page. `connect-src 'self'`
 * covers the API and Socket.IO on this origin, WebSocket included; the driver app's service worker and web manifest
 * come from the service too.
 */
export const WEB_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** dist/web, found upward from this file: the same from src/ (tests) and dist/src/ (the build, the image). */
export function webFolder(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++, dir = dirname(dir)) {
    if (existsSync(join(dir, 'dist', 'web', 'panel', 'index.html'))) return join(dir, 'dist', 'web');
  }
  return null;
}

const securityHeaders = (res: Response): void => setPageHeaders(res, WEB_CSP);

/** The driver app's own files beside its page: its service worker, web manifest and icons. */
const APP_FILES = /^\/(sw\.js|manifest\.webmanifest|icon(-[a-z]+)?-\d+\.png)$/;

/**
 * `/panel`, `/app` and their hashed `/assets/*`. Pages are never cached (a new build shows at once); assets
 * carry a content hash in their names, so they are cached for good. The driver app's service worker
 * (`/app/sw.js`, scope `/app`), manifest and icons are checked again on each use. Without a build (`npm run build`
 * makes it) the pages answer 404 like any unknown route.
 */
export function webPages(folder: string | null = webFolder()): RequestHandler | null {
  if (!folder) return null;
  const assets = express.static(join(folder, 'assets'), {
    index: false,
    fallthrough: true,
    immutable: true,
    maxAge: '365d',
    setHeaders: (res) => securityHeaders(res),
  });
  const page = (name: string): RequestHandler => {
    const file = join(folder, name, 'index.html');
    return (req: Request, res: Response, next: NextFunction) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return next();
      // /panel and /panel/ only: a deeper path is not a page.
      if (req.path !== '/' && req.path !== '') return next();
      securityHeaders(res);
      res.setHeader('Cache-Control', 'no-store');
      res.sendFile(file, (error) => error && next(error));
    };
  };
  const appFiles = express.static(join(folder, 'app'), {
    index: false,
    fallthrough: true,
    cacheControl: false,
    setHeaders: (res, path) => {
      securityHeaders(res);
      res.setHeader('Cache-Control', 'no-cache');
      // The worker's file is under /app/, its scope the page /app itself.
      if (path.endsWith('sw.js')) res.setHeader('Service-Worker-Allowed', '/app');
    },
  });
  const router = express.Router({ strict: false });
  router.use('/assets', (req, res, next) => (req.method === 'GET' || req.method === 'HEAD' ? assets(req, res, next) : next()));
  router.use('/app', (req, res, next) =>
    (req.method === 'GET' || req.method === 'HEAD') && APP_FILES.test(req.path) ? appFiles(req, res, next) : next(),
  );
  for (const name of WEB_PAGES) router.use(`/${name}`, page(name));
  return router;
}
