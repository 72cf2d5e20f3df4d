import { lookup } from 'node:dns';
import { promisify } from 'node:util';
import ipaddr from 'ipaddr.js';

/** Longest webhook URL taken. */
export const WEBHOOK_URL_MAX = 2048;

/**
 * Why an address may not be a webhook's destination, or null when it is a public unicast one. IPv4-mapped IPv6
 * addresses (`::ffff:127.0.0.1`) are judged as the IPv4 address they carry; every range ipaddr.js names other than
 * `unicast` is refused: loopback, private, link-local, unique-local, carrier-grade NAT, unspecified, multicast,
 * broadcast, reserved, and the IPv6 ranges that embed an IPv4 address (6to4, Teredo, NAT64).
 */
export function refusedRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const range = ipaddr.process(address).range();
  return range === 'unicast' ? null : range;
}

/** An address a webhook may not reach: at create and update it is a 400, when sending a failed attempt. */
export class RefusedAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(address ? `${host} resolves to ${address} (${range}), which webhooks may not reach` : `${host} does not resolve`);
    this.name = 'RefusedAddressError';
  }
}

/** The host of a URL as DNS and ipaddr.js take it: IPv6 literals without their brackets. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** What is wrong with the form of a webhook URL, or null: http or https, no credentials. */
export function urlFormIssue(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http:// or https:// URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must use http:// or https://, got ${url.protocol}//`;
  if (url.username || url.password) return 'must not carry credentials';
  if (!url.hostname) return 'must name a host';
  return null;
}

type LookupAll = (host: string, options: { all: true }) => Promise<{ address: string; family: number }[]>;
const lookupAll = promisify(lookup) as unknown as LookupAll;

/**
 * Resolves the URL's host (an IP literal stands for itself) and throws RefusedAddressError when any address it
 * resolves to is refused, or when it does not resolve at all.
 */
export async function checkDestination(raw: string): Promise<void> {
  const host = hostOf(new URL(raw));
  const addresses = ipaddr.isValid(host)
    ? [host]
    : await lookupAll(host, { all: true }).then(
        (found) => found.map((entry) => entry.address),
        () => [],
      );
  if (addresses.length === 0) throw new RefusedAddressError(host, '', 'unresolved');
  for (const address of addresses) {
    const range = refusedRange(address);
    if (range) throw new RefusedAddressError(host, address, range);
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void;

/**
 * A `lookup` for sockets that refuses what checkDestination refuses, on the very addresses the socket connects
 * to: a host whose DNS answer changed since the URL was checked (DNS rebinding) fails the connection.
 */
export function guardedLookup(hostname: string, options: object, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, found) => {
    if (error) return callback(error, []);
    for (const { address } of found) {
      const range = refusedRange(address);
      if (range) return callback(new RefusedAddressError(hostname, address, range) as NodeJS.ErrnoException, []);
    }
    if ((options as { all?: boolean }).all) return callback(null, found);
    callback(null, found[0].address, found[0].family);
  });
}
