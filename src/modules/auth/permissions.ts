import { createAliasResolver, createMongoAbility, type MongoAbility } from '@casl/ability';
import type { AccountKind } from './principal.js';

/**
 * People and permissions (docs/users.md#roles). A permission is `<resource>:read` or `<resource>:write`; write
 * implies read. The table of roles below is the one place that says who may do what: the guard, `/me`, the
 * panel and the docs all read it.
 */
export const RESOURCES = [
  'appointments',
  'trips',
  'tickets',
  'layouts',
  'capacity',
  'bookings',
  'webhooks',
  'events',
  'drivers',
  'gate',
  'audit',
  'reports',
  'users',
  'keys',
  'account',
  'accounts',
] as const;
export type Resource = (typeof RESOURCES)[number];
export type Action = 'read' | 'write';
export type Permission = `${Resource}:${Action}`;

export const PERMISSIONS: readonly Permission[] = RESOURCES.flatMap((resource) => [`${resource}:read`, `${resource}:write`] as const);

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}

const write = (...resources: Resource[]): Permission[] => resources.map((resource) => `${resource}:write` as const);
const read = (...resources: Resource[]): Permission[] => resources.map((resource) => `${resource}:read` as const);

/** The roles of each kind of account and what each may do; the first role of a kind is its owner. */
export const ROLES = {
  terminal: {
    owner: write(
      'appointments',
      'tickets',
      'layouts',
      'capacity',
      'webhooks',
      'events',
      'drivers',
      'gate',
      'audit',
      'reports',
      'users',
      'keys',
      'account',
    ),
    planner: [...write('appointments', 'tickets', 'layouts', 'capacity', 'drivers', 'gate', 'events'), ...read('audit', 'reports')],
    gate: [...read('appointments', 'tickets'), ...write('gate', 'drivers')],
    viewer: read('appointments', 'tickets', 'layouts', 'capacity', 'gate', 'reports'),
  },
  carrier: {
    owner: write('trips', 'layouts', 'bookings', 'webhooks', 'events', 'drivers', 'audit', 'reports', 'users', 'keys', 'account'),
    dispatcher: [...write('trips', 'bookings', 'drivers'), ...read('layouts', 'events', 'reports')],
    viewer: read('trips', 'bookings', 'layouts', 'reports'),
  },
  admin: {
    admin: write('accounts', 'audit'),
  },
} as const satisfies Record<AccountKind, Record<string, readonly Permission[]>>;

export type Role = { [K in AccountKind]: keyof (typeof ROLES)[K] }[AccountKind];

/** The roles an account of this kind may give its users, the owner first. */
export function rolesOf(kind: AccountKind): Role[] {
  return Object.keys(ROLES[kind]) as Role[];
}

export function isRoleOf(kind: AccountKind, role: unknown): role is Role {
  return typeof role === 'string' && Object.hasOwn(ROLES[kind], role);
}

/** The owner role of a kind: what its account keys may do. */
export const OWNER_ROLE: Record<AccountKind, Role> = { terminal: 'owner', carrier: 'owner', admin: 'admin' };

/** What a role of an account of this kind may do, as listed in the table (writes only where it writes). */
export function roleGrants(kind: AccountKind, role: Role): readonly Permission[] {
  return (ROLES[kind] as Record<string, readonly Permission[]>)[role] ?? [];
}

/** Every permission a list grants, the reads its writes imply included, sorted: what `permissions` answers. */
export function expand(granted: readonly Permission[]): Permission[] {
  const all = new Set<Permission>();
  for (const permission of granted) {
    all.add(permission);
    if (permission.endsWith(':write')) all.add(permission.replace(/:write$/, ':read') as Permission);
  }
  return PERMISSIONS.filter((permission) => all.has(permission));
}

/** Whether `granted` allows every permission of `wanted` (a user's key is narrowed to a subset of its user's). */
export function allows(granted: readonly Permission[], wanted: readonly Permission[]): boolean {
  const ability = abilityOf(granted);
  return wanted.every((permission) => can(ability, permission));
}

/** `write` is an alias that also grants `read`: a rule `write appointments` allows both. */
const resolveAction = createAliasResolver({ write: 'read' });

export type Ability = MongoAbility<[Action, Resource]>;

const abilities = new Map<string, Ability>();

/** The CASL ability of a list of permissions; one object per distinct list, shared by every principal that holds it. */
export function abilityOf(granted: readonly Permission[]): Ability {
  const key = [...granted].sort().join(' ');
  let ability = abilities.get(key);
  if (!ability) {
    ability = createMongoAbility<[Action, Resource]>(
      granted.map((permission) => {
        const [subject, action] = permission.split(':') as [Resource, Action];
        return { action, subject };
      }),
      { resolveAction },
    );
    abilities.set(key, ability);
  }
  return ability;
}

export function can(ability: Ability, permission: Permission): boolean {
  const [subject, action] = permission.split(':') as [Resource, Action];
  return ability.can(action, subject);
}
