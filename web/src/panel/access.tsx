import { type ComponentChildren, createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { MessageKey } from '../shared/i18n.js';
import type { Schemas } from '../shared/schemas.js';

/** Who is signed in (GET /api/v1/me): the account's kind and name, the person (a session or a user's key) and what they may do. */
export type Me = Schemas['MeView'];
export type AccountKind = Me['kind'];

/** The pages of the panel; each is also its address (`/panel#capacity`). */
export const PAGE_NAMES = [
  'board',
  'gate',
  'capacity',
  'book',
  'bookings',
  'reports',
  'layouts',
  'webhooks',
  'users',
  'account',
  'keys',
  'audit',
  'me',
  'accounts',
] as const;
export type Page = (typeof PAGE_NAMES)[number];

interface PageRule {
  page: Page;
  label: MessageKey;
  /** The account kinds that have this page. */
  kinds: readonly AccountKind[];
  /** What the caller must hold to use it: a permission (`capacity:read`), or `session` for a person signed in with a session. */
  needs: string;
}

/**
 * Which page each person sees: a page is linked, and drawn at its address, only for the account kinds it belongs to
 * and a caller whose `permissions` (from GET /api/v1/me) hold what it needs. The service refuses the rest anyway.
 */
const RULES: readonly PageRule[] = [
  { page: 'board', label: 'panel.nav.appointments', kinds: ['terminal'], needs: 'appointments:read' },
  { page: 'board', label: 'panel.nav.trips', kinds: ['carrier'], needs: 'trips:read' },
  { page: 'gate', label: 'panel.nav.gate', kinds: ['terminal'], needs: 'gate:read' },
  { page: 'capacity', label: 'panel.nav.capacity', kinds: ['terminal'], needs: 'capacity:read' },
  { page: 'book', label: 'panel.nav.book', kinds: ['carrier'], needs: 'bookings:write' },
  { page: 'bookings', label: 'panel.nav.bookings', kinds: ['carrier'], needs: 'bookings:read' },
  { page: 'reports', label: 'panel.nav.reports', kinds: ['terminal', 'carrier'], needs: 'reports:read' },
  { page: 'layouts', label: 'panel.nav.layouts', kinds: ['terminal', 'carrier'], needs: 'layouts:read' },
  { page: 'webhooks', label: 'panel.nav.webhooks', kinds: ['terminal', 'carrier'], needs: 'webhooks:read' },
  { page: 'users', label: 'panel.nav.users', kinds: ['terminal', 'carrier'], needs: 'users:read' },
  { page: 'account', label: 'panel.nav.account', kinds: ['terminal', 'carrier'], needs: 'account:read' },
  { page: 'keys', label: 'panel.nav.keys', kinds: ['terminal', 'carrier'], needs: 'keys:read' },
  { page: 'accounts', label: 'panel.nav.accounts', kinds: ['admin'], needs: 'accounts:read' },
  { page: 'audit', label: 'panel.nav.audit', kinds: ['terminal', 'carrier', 'admin'], needs: 'audit:read' },
  { page: 'me', label: 'panel.nav.me', kinds: ['terminal', 'carrier', 'admin'], needs: 'session' },
];

/** A test of one permission (`capacity:write`) for the signed-in caller. */
export type May = (permission: string) => boolean;

export function mayOf(me: Me): May {
  const held = new Set(me.permissions);
  return (permission) => (permission === 'session' ? me.csrf_token !== null && me.user !== null : held.has(permission));
}

/** The pages this caller may use, in the navigation's order, with their labels. */
export function pagesOf(me: Me): { page: Page; label: MessageKey }[] {
  const may = mayOf(me);
  return RULES.filter((rule) => rule.kinds.includes(me.kind) && may(rule.needs)).map(({ page, label }) => ({ page, label }));
}

/** The page an address names (`#capacity`), or null for none of the panel's. */
export function pageOfHash(hash: string): Page | null {
  const name = hash.replace(/^#/, '');
  return (PAGE_NAMES as readonly string[]).includes(name) ? (name as Page) : null;
}

const Access = createContext<May>(() => false);

/** Gives the pages the caller's permissions, so each hides the buttons of changes the caller may not make. */
export function AccessProvider({ may, children }: { may: May; children: ComponentChildren }) {
  return <Access.Provider value={may}>{children}</Access.Provider>;
}

/** `may('layouts:write')`: whether the signed-in caller may make this change (a page shows its button only then). */
export function useMay(): May {
  return useContext(Access);
}

export { roleWord } from './role-words.js';
