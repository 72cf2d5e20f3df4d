import type { NextFunction, Request, Response } from 'express';

/** On every answer of the service: browsers take each answer as the type it declares, never as a guess. */
export function noSniff(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
}

/** A Content-Security-Policy from its directives, `default-src 'none'` first and never framed. */
export function contentSecurityPolicy(...directives: string[]): string {
  return ["default-src 'none'", ...directives, "base-uri 'none'", "frame-ancestors 'none'"].join('; ');
}

/**
 * What every page the service draws in a browser carries (the panel, the driver app, Swagger UI and what it loads):
 * its CSP, never framed (`frame-ancestors 'none'`, and X-Frame-Options for browsers that predate it), no referrer
 * sent on, and a browsing context of its own (a page it opens, or that opened it, gets no handle on it).
 */
export function setPageHeaders(res: Response, csp: string): void {
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
}
