import { applyDecorators, createParamDecorator, type ExecutionContext, RequestMethod, SetMetadata } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants.js';
import { ApiBearerAuth, ApiCookieAuth, ApiExtension, ApiSecurity } from '@nestjs/swagger';
import type { Request } from 'express';
import { API_KEY_SCHEME, DRIVER_TOKEN_SCHEME, REQUIREMENT_EXTENSION, SESSION_SCHEME } from '../../common/docs/security-schemes.js';
import type { Permission, Resource } from './permissions.js';
import type { AccountKind, DriverPrincipal, PartnerPrincipal, Principal } from './principal.js';

export const AUTH_KINDS = 'auth:kinds';
export const IS_PUBLIC = 'auth:public';
export const DRIVER_AUTH = 'auth:driver';
export const REQUIREMENT = 'auth:requirement';
export const MFA_SETUP = 'auth:mfa-setup';

/**
 * What a route asks of its caller beyond authentication: a permission (docs/users.md#roles), `any` caller at all
 * (`GET /api/v1/me`), or a `session` (a person signed in themselves: their own MFA, keys and sessions; not a key).
 */
export type Requirement = Permission | 'any' | 'session';

/**
 * The route needs an account key, a user's key or a session of one of these account kinds; other kinds get 403.
 * No kind: any. A route of partner kinds only takes its caller with `@CurrentPartner()`.
 */
export const Auth = (...kinds: AccountKind[]) =>
  applyDecorators(SetMetadata(AUTH_KINDS, kinds), ApiSecurity(API_KEY_SCHEME), ApiCookieAuth(SESSION_SCHEME));

/** This route's requirement, over the one its controller's `@AccessTo` gives it. */
export const Requires = (requirement: Requirement) =>
  applyDecorators(SetMetadata(REQUIREMENT, requirement), ApiExtension(REQUIREMENT_EXTENSION, requirement));

const READS: RequestMethod[] = [RequestMethod.GET, RequestMethod.HEAD];

/**
 * Every route of the controller is about this resource: a GET needs `<resource>:read`, any other method
 * `<resource>:write`, unless the route says otherwise with `@Requires`. The guard refuses a route that declares
 * nothing, so a new route cannot forget it.
 */
export function AccessTo(resource: Resource): ClassDecorator {
  return (target) => {
    const prototype = (target as unknown as { prototype: Record<string, unknown> }).prototype;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
      const handler = descriptor?.value as object | undefined;
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined || Reflect.getMetadata(REQUIREMENT, handler) !== undefined) continue;
      const permission: Permission = `${resource}:${READS.includes(method) ? 'read' : 'write'}`;
      Requires(permission)(prototype, name, descriptor);
    }
  };
}

/** A route a session that may only set MFA up can still call (its own MFA, who it is, signing out). */
export const DuringMfaSetup = () => SetMetadata(MFA_SETUP, true);

/** The route is the driver app's: it takes a driver token (`Authorization: Bearer`), not an API key. */
export const DriverAuth = () => applyDecorators(SetMetadata(DRIVER_AUTH, true), ApiBearerAuth(DRIVER_TOKEN_SCHEME));

/** The route answers without a key (health, metrics, signing in). */
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
