import type { NextFunction, Request, Response } from 'express';
import { inAuditScope } from '../../database/audit-context.js';

/**
 * Every request runs in an audit scope of its own (docs/audit.md#actors): its id, address and user agent, and the
 * actor the guard sets once it knows the caller. Registered after the body parser, so the scope reaches the handler.
 */
export function auditScope(req: Request, _res: Response, next: NextFunction): void {
  const agent = req.header('user-agent');
  inAuditScope({ request_id: req.requestId, ip: req.ip ?? null, user_agent: agent ? agent.slice(0, 500) : null }, next);
}
