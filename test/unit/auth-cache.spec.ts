import { beforeEach, describe, expect, it } from '@jest/globals';
import { AuthCache, type GrantRef } from '../../src/modules/auth/auth-cache.js';
import { BoundedCache } from '../../src/modules/auth/bounded-cache.js';
import type { DriverPrincipal, Principal } from '../../src/modules/auth/principal.js';
import { keyPrincipal } from '../../src/modules/auth/principals.js';
import { parseRevocation } from '../../src/modules/auth/revocation-signal.js';
import { Revocations } from '../../src/modules/auth/revocations.js';

const KEY_ID = '6f1c1e2a-0000-4000-8000-000000000001';
const ACCOUNT_ID = '6f1c1e2a-0000-4000-8000-000000000002';
const DRIVER_ID = '6f1c1e2a-0000-4000-8000-000000000003';
const principal: Principal = keyPrincipal({ keyId: KEY_ID, accountId: ACCOUNT_ID, kind: 'terminal', user: null, expiresAt: null });
const grant: GrantRef = { taxId: '12345678901', partnerId: ACCOUNT_ID, generation: 0 };
const driver: DriverPrincipal = { taxId: grant.taxId, driverId: DRIVER_ID, partnerId: ACCOUNT_ID };

/** A lookup the test answers when it wants, counting its calls. */
function controllableLookup<V>() {
  const pending: ((value: V | null) => void)[] = [];
  let calls = 0;
  const lookup = () => (calls++, new Promise<V | null>((resolve) => pending.push(resolve)));
  return { lookup, calls: () => calls, answer: (value: V | null) => pending.shift()!(value) };
}

/** A lookup that answers at once, counting its calls. */
function countingLookup<V>(value: V | null) {
  let calls = 0;
  return { lookup: () => (calls++, Promise.resolve(value)), calls: () => calls };
}

describe('BoundedCache', () => {
  it('holds at most `max` entries, dropping the least recently used', () => {
    const cache = new BoundedCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, undefined, 3]);
    expect(cache.size).toBe(2);
  });

  it('drops an entry `ttlMs` after it was stored, however often it is read', () => {
    let now = 0;
    const cache = new BoundedCache<number>(10, 100, () => now);
    cache.set('a', 1);
    now = 99;
    expect(cache.get('a')).toBe(1);
    now = 100;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('deletes the entries a predicate picks', () => {
    const cache = new BoundedCache<number>(10);
    for (const [key, value] of Object.entries({ a: 1, b: 2, c: 3 })) cache.set(key, value);
    cache.deleteWhere((value) => value % 2 === 1);
    expect([...cache]).toEqual([['b', 2]]);
  });
});

describe('AuthCache', () => {
  let revocations: Revocations;
  let cache: AuthCache;
  beforeEach(() => {
    revocations = new Revocations();
    cache = new AuthCache(revocations);
    cache.trust();
  });

  it('answers a known key and a known driver token without a second lookup', async () => {
    const key = countingLookup(principal);
    const token = countingLookup(driver);
    for (let i = 0; i < 3; i++) {
      expect(await cache.apiKey('hash', key.lookup)).toEqual(principal);
      expect(await cache.driver(grant, token.lookup)).toEqual(driver);
    }
    expect([key.calls(), token.calls()]).toEqual([1, 1]);
  });

  it('forgets a key and a driver’s tokens when their revocation is announced, and nothing else', async () => {
    const other = { ...principal, keyId: '6f1c1e2a-0000-4000-8000-000000000009' };
    const [key, otherKey, token] = [countingLookup(principal), countingLookup(other), countingLookup(driver)];
    await cache.apiKey('hash', key.lookup);
    await cache.apiKey('other', otherKey.lookup);
    await cache.driver(grant, token.lookup);

    revocations.announce({ kind: 'api-key', keyId: KEY_ID });
    await cache.apiKey('hash', key.lookup);
    await cache.apiKey('other', otherKey.lookup);
    await cache.driver(grant, token.lookup);
    expect([key.calls(), otherKey.calls(), token.calls()]).toEqual([2, 1, 1]);

    revocations.announce({ kind: 'driver-tokens', driverId: DRIVER_ID, partnerId: ACCOUNT_ID });
    await cache.driver(grant, token.lookup);
    expect(token.calls()).toBe(2);
  });

  it('keeps nothing from a lookup that was under way when a revocation was announced', async () => {
    const slow = controllableLookup<Principal>();
    const answered = cache.apiKey('hash', slow.lookup);
    // The lookup read the key live before the revocation committed; its answer reaches the cache after.
    revocations.announce({ kind: 'api-key', keyId: KEY_ID });
    slow.answer(principal);
    expect(await answered).toEqual(principal);

    const next = cache.apiKey('hash', slow.lookup);
    expect(slow.calls()).toBe(2);
    slow.answer(null);
    expect(await next).toBeNull();
  });

  it('keeps nothing from a lookup under way when trust changed, even back', async () => {
    const slow = controllableLookup<DriverPrincipal>();
    const answered = cache.driver(grant, slow.lookup);
    cache.distrust();
    cache.trust();
    slow.answer(driver);
    await answered;
    const again = countingLookup(driver);
    await cache.driver(grant, again.lookup);
    expect(again.calls()).toBe(1);
  });

  it('while untrusted, looks up every time and stores nothing; trusted again, starts empty', async () => {
    const key = countingLookup(principal);
    await cache.apiKey('hash', key.lookup);
    cache.distrust();
    expect(cache.trusted).toBe(false);
    await cache.apiKey('hash', key.lookup);
    await cache.apiKey('hash', key.lookup);
    expect(key.calls()).toBe(3);

    cache.trust();
    await cache.apiKey('hash', key.lookup);
    await cache.apiKey('hash', key.lookup);
    expect(key.calls()).toBe(4);
  });

  it('starts untrusted: nothing is cached until a listener trusts it', async () => {
    const fresh = new AuthCache(new Revocations());
    const key = countingLookup(principal);
    await fresh.apiKey('hash', key.lookup);
    await fresh.apiKey('hash', key.lookup);
    expect(key.calls()).toBe(2);
  });

  it('remembers a refusal briefly, apart from the credentials it holds', async () => {
    const unknown = countingLookup<Principal>(null);
    expect(await cache.apiKey('nobody', unknown.lookup)).toBeNull();
    expect(await cache.apiKey('nobody', unknown.lookup)).toBeNull();
    expect(unknown.calls()).toBe(1);
    const token = countingLookup<DriverPrincipal>(null);
    await cache.driver({ ...grant, generation: 7 }, token.lookup);
    await cache.driver({ ...grant, generation: 7 }, token.lookup);
    expect(token.calls()).toBe(1);
  });

  it('drops on revalidation the credentials the database no longer holds live', async () => {
    const key = countingLookup(principal);
    const token = countingLookup(driver);
    await cache.apiKey('hash', key.lookup);
    await cache.apiKey('other', countingLookup({ ...principal, keyId: 'k2' }).lookup);
    await cache.driver(grant, token.lookup);
    const asked: { hashes?: string[]; grants?: GrantRef[] } = {};
    await cache.revalidate({
      liveKeyHashes: (hashes) => ((asked.hashes = hashes), Promise.resolve(['other'])),
      liveGrants: (grants) => ((asked.grants = grants), Promise.resolve([])),
      liveSessionHashes: () => Promise.resolve([]),
    });
    expect(asked).toEqual({ hashes: ['hash', 'other'], grants: [grant] });
    await cache.apiKey('hash', key.lookup);
    await cache.driver(grant, token.lookup);
    expect([key.calls(), token.calls()]).toEqual([2, 2]);
  });

  it('empties itself for a revocation of a kind it does not know', async () => {
    const key = countingLookup(principal);
    await cache.apiKey('hash', key.lookup);
    revocations.announce({ kind: 'account', accountId: ACCOUNT_ID } as never);
    await cache.apiKey('hash', key.lookup);
    expect(key.calls()).toBe(2);
  });
});

describe('parseRevocation', () => {
  it('reads the payloads the revoking transaction sends, and nothing else', () => {
    expect(parseRevocation(JSON.stringify({ kind: 'api-key', keyId: KEY_ID }))).toEqual({ kind: 'api-key', keyId: KEY_ID });
    const tokens = { kind: 'driver-tokens', driverId: DRIVER_ID, partnerId: ACCOUNT_ID };
    expect(parseRevocation(JSON.stringify(tokens))).toEqual(tokens);
    for (const payload of [
      undefined,
      '',
      'null',
      '42',
      '{"kind":"api-key"}',
      '{"kind":"api-key","keyId":"x"}',
      '{"kind":"other"}',
      '{oops',
    ])
      expect(parseRevocation(payload)).toBeNull();
  });
});
