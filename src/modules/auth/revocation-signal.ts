import type { EntityManager } from 'typeorm';
import { isUUID } from 'class-validator';
import type { Revocation } from './revocations.js';

/** The PostgreSQL channel every instance listens on (RevocationListener). */
export const REVOCATION_CHANNEL = 'gate_revocations';

/**
 * Tells every process listening on this database about a revocation, when the transaction of `manager`
 * commits (PostgreSQL delivers notifications at commit, and drops them on rollback). Call it in the same
 * transaction that stores the revocation: so does the CLI, which reaches the running service this way.
 */
export async function signalRevocation(manager: EntityManager, revocation: Revocation): Promise<void> {
  await manager.query('SELECT pg_notify($1, $2)', [REVOCATION_CHANNEL, JSON.stringify(revocation)]);
}

/** The revocation a notification carries, or null for a payload that is not one (then a listener forgets everything). */
export function parseRevocation(payload: string | undefined): Revocation | null {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(payload ?? '') as Record<string, unknown>;
  } catch {
    return null;
  }
  if (value?.kind === 'api-key' && isUUID(value.keyId)) return { kind: 'api-key', keyId: value.keyId as string };
  if (value?.kind === 'driver-tokens' && isUUID(value.driverId) && isUUID(value.partnerId))
    return { kind: 'driver-tokens', driverId: value.driverId as string, partnerId: value.partnerId as string };
  if (value?.kind === 'session' && isUUID(value.sessionId)) return { kind: 'session', sessionId: value.sessionId as string };
  if (value?.kind === 'user' && isUUID(value.userId)) return { kind: 'user', userId: value.userId as string };
  return null;
}
