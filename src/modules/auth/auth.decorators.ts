import { applyDecorators, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import type { Request } from 'express';
import { API_KEY_SCHEME, DRIVER_TOKEN_SCHEME } from '../../common/docs/security-schemes.js';
import type { AccountKind, DriverPrincipal, PartnerPrincipal, Principal } from './principal.js';

export const AUTH_KINDS = 'auth:kinds';
export const IS_PUBLIC = 'auth:public';
export const DRIVER_AUTH = 'auth:driver';

/**
 * The route needs an `X-API-Key` of one of these account kinds; other kinds get 403. No kind: any key.
 * A route of partner kinds only takes its caller with `@CurrentPartner()`.
 */
export const Auth = (...kinds: AccountKind[]) => applyDecorators(SetMetadata(AUTH_KINDS, kinds), ApiSecurity(API_KEY_SCHEME));

/** The route is the driver app's: it takes a driver token (`Authorization: Bearer`), not an API key. */
export const DriverAuth = () => applyDecorators(SetMetadata(DRIVER_AUTH, true), ApiBearerAuth(DRIVER_TOKEN_SCHEME));

/** The route answers without a key (health, metrics). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<Request>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without @Auth');
  return principal;
});

/** The caller of a route that admits partner keys only (`@Auth('terminal')`, `@Auth('carrier', 'terminal')`…). */
export function currentPartner(_data: unknown, ctx: ExecutionContext): PartnerPrincipal {
  const principal = ctx.switchToHttp().getRequest<Request>().principal;
  if (!principal) throw new Error('CurrentPartner used on a route without @Auth');
  if (principal.kind === 'admin') throw new Error('CurrentPartner used on a route that admits admin keys');
  return principal;
}
export const CurrentPartner = createParamDecorator(currentPartner);

export const CurrentDriver = createParamDecorator((_data: unknown, ctx: ExecutionContext): DriverPrincipal => {
  const driver = ctx.switchToHttp().getRequest<Request>().driver;
  if (!driver) throw new Error('CurrentDriver used on a route without @DriverAuth');
  return driver;
});
