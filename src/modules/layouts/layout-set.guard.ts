import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { checkLayoutSetAccess } from './layouts.service.js';

/** Refuses an unknown set or another kind's set as part of authorisation, before the body is read. */
@Injectable()
export class LayoutSetGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    checkLayoutSetAccess(request.principal!, String(request.params.set));
    return true;
  }
}
