import { applyDecorators, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import type { Request } from 'express';
import type { AccountKind } from '../accounts/account.entity.js';
import type { Principal } from './principal.js';

export const AUTH_KINDS = 'auth:kinds';
export const IS_PUBLIC = 'auth:public';
export const API_KEY_SCHEME = 'api-key';

/** The route needs an `X-API-Key` of one of these account kinds; other kinds get 403. */
export const Auth = (...kinds: AccountKind[]) =>
  applyDecorators(SetMetadata(AUTH_KINDS, kinds), ApiSecurity(API_KEY_SCHEME));

/** The route answers without a key (health, metrics). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<Request>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without @Auth');
  return principal;
});
