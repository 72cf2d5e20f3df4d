import type english from '../messages/en.json';

type MessageKey = keyof typeof english;

const ROLE_WORDS: Record<string, MessageKey> = {
  owner: 'role.owner',
  planner: 'role.planner',
  gate: 'role.gate',
  viewer: 'role.viewer',
  dispatcher: 'role.dispatcher',
  admin: 'role.admin',
};

/**
 * A role as a word ("Gate clerk", "Porteiro"); a role the panel does not know shows as the service named it. A module
 * of its own, without the page's components, so that the audit trail's words (audit-words.ts) run outside a browser.
 */
export function roleWord(t: (key: MessageKey) => string, role: string): string {
  return ROLE_WORDS[role] ? t(ROLE_WORDS[role]) : role;
}
