import type { Request, Response } from 'express';
import { SESSION_COOKIE } from '../auth/session-token.js';
import { SESSION_HOURS } from './sessions.repository.js';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Secure unless the service is reached over plain http on this machine (development): browsers drop it there otherwise. */
function secure(request: Request): boolean {
  return !(request.protocol === 'http' && LOCAL_HOSTS.has(request.hostname));
}

/** Sets `gate_session`: HttpOnly, SameSite=Lax, Path=/, for the session's 12 hours. */
export function setSessionCookie(request: Request, response: Response, token: string): void {
  response.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: secure(request),
    maxAge: SESSION_HOURS * 3_600_000,
  });
}

export function clearSessionCookie(request: Request, response: Response): void {
  response.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', path: '/', secure: secure(request) });
}
