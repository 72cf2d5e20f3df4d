import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { AUTH_KINDS, currentPartner, DRIVER_AUTH, IS_PUBLIC, REQUIREMENT } from '../../src/modules/auth/auth.decorators.js';
import { PERMISSIONS, ROLES } from '../../src/modules/auth/permissions.js';

/**
 * A partner principal is typed with a non-null account: a route may take one (`@CurrentPartner()`) only when its
 * `@Auth` admits partner kinds alone, so no admin key (the bootstrap one has no account) ever reaches it.
 */
const SRC = new URL('../../src/', import.meta.url).pathname;

const controllerFiles = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.controller.ts'))
  .map((file) => join(SRC, file));

type Handler = (...args: unknown[]) => unknown;

interface Route {
  route: string;
  kinds: string[] | undefined;
  takesPartner: boolean;
  open: boolean;
  requirement: string | undefined;
}

async function routes(): Promise<Route[]> {
  const found = [];
  for (const file of controllerFiles) {
    const module = (await import(file)) as Record<string, unknown>;
    for (const controller of Object.values(module)) {
      if (typeof controller !== 'function' || Reflect.getMetadata('path', controller) === undefined) continue;
      const prototype = (controller as { prototype: Record<string, Handler> }).prototype;
      for (const method of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[method];
        if (method === 'constructor' || Reflect.getMetadata('method', handler) === undefined) continue;
        const meta = (key: string) => (Reflect.getMetadata(key, handler) ?? Reflect.getMetadata(key, controller)) as unknown;
        const args = Object.values(
          (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<string, { factory?: unknown }>,
        );
        found.push({
          route: `${controller.name}.${method}`,
          kinds: (Reflect.getMetadata(AUTH_KINDS, handler) ?? Reflect.getMetadata(AUTH_KINDS, controller)) as string[] | undefined,
          takesPartner: args.some((arg) => arg.factory === currentPartner),
          open: Boolean(meta(IS_PUBLIC) || meta(DRIVER_AUTH)),
          requirement: Reflect.getMetadata(REQUIREMENT, handler) as string | undefined,
        });
      }
    }
  }
  return found;
}

describe('routes that take a partner principal', () => {
  it('admit partner keys only', async () => {
    const all = await routes();
    const partnerRoutes = all.filter((route) => route.takesPartner);
    // The walk finds the routes (trips, appointments, layouts, webhooks…), so it cannot pass by finding none.
    expect(partnerRoutes.map((route) => route.route)).toEqual(
      expect.arrayContaining(['TripsController.create', 'AppointmentsController.logs']),
    );
    expect(
      partnerRoutes.filter((route) => !route.kinds?.length || route.kinds.some((kind) => kind !== 'terminal' && kind !== 'carrier')),
    ).toEqual([]);
  });
});

describe('every route says what it requires (docs/users.md#roles)', () => {
  it('is public, a driver route, or declares a permission, any caller or a session', async () => {
    const all = await routes();
    expect(all.length).toBeGreaterThan(40);
    const allowed = new Set<string>([...PERMISSIONS, 'any', 'session']);
    expect(all.filter((route) => !route.open && !allowed.has(route.requirement ?? ''))).toEqual([]);
  });

  it('asks of a route only what some role of a kind it admits can have', async () => {
    const held = (kind: string) =>
      new Set(Object.values(ROLES[kind as keyof typeof ROLES]).flatMap((granted) => granted.map((p) => p.replace(/:write$/, ''))));
    const unreachable = (await routes()).filter(
      ({ requirement, kinds }) =>
        requirement?.includes(':') &&
        (kinds ?? []).length > 0 &&
        !kinds!.some((kind) => held(kind).has(requirement.replace(/:(read|write)$/, ''))),
    );
    expect(unreachable).toEqual([]);
  });
});
