import { createHash, randomBytes } from 'node:crypto';

const KEY_PREFIX = 'gsk_';

/** A new random key: 32 bytes of entropy, URL-safe. */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** Keys carry 256 bits of entropy, so a plain SHA-256 is enough to store them safely and look them up fast. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 6);
}
