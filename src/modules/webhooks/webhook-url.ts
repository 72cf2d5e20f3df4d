import { lookup } from 'node:dns';
import { promisify } from 'node:util';
import ipaddr from 'ipaddr.js';

/** Longest webhook URL taken. */
export const WEBHOOK_URL_MAX = 2048;

const cidr = (text: string) => ipaddr.parseCIDR(text) as [ipaddr.IPv6, number];
/** Where IPv6 unicast addresses are allocated on the internet; nothing outside it is reachable there. */
const GLOBAL_UNICAST = cidr('2000::/3');
/** IPv4-compatible addresses (deprecated): `::a.b.c.d`, which WHATWG URLs write as `::7f00:1`. */
const IPV4_COMPATIBLE = cidr('::/96');
/** The well-known NAT64 prefix (RFC 6052): `64:ff9b::a.b.c.d` reaches the IPv4 address it carries. */
const NAT64 = cidr('64:ff9b::/96');

/** Why an IPv4 address may not be a webhook's destination, or null: every range ipaddr.js names but `unicast`. */
function refusedIPv4(address: ipaddr.IPv4): string | null {
  const range = address.range();
  return range === 'unicast' ? null : range;
}

/**
 * Why an address may not be a webhook's destination, or null when it is a public unicast one. IPv4: every range
 * ipaddr.js names other than `unicast` (loopback, private, link-local, carrier-grade NAT, unspecified, multicast,
 * broadcast, reserved…). IPv6: only global unicast (`2000::/3`) outside every range ipaddr.js names (Teredo,
 * 6to4, documentation, benchmarking…), so unique-local, link-local, site-local, multicast, `::`, `::1` and the
 * deprecated IPv4-compatible `::/96` are refused, whatever way they are written. The two forms that reach an
 * IPv4 address, IPv4-mapped (`::ffff:10.0.0.1`) and NAT64 (`64:ff9b::10.0.0.1`), are judged as that address.
 */
export function refusedRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') return refusedIPv4(ip as ipaddr.IPv4);
  const v6 = ip as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return refusedIPv4(v6.toIPv4Address());
  if (v6.match(NAT64)) return refusedIPv4(ipaddr.fromByteArray(v6.toByteArray().slice(12)) as ipaddr.IPv4);
  const range = v6.range();
  if (range !== 'unicast') return range;
  if (v6.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  if (!v6.match(GLOBAL_UNICAST)) return 'notGlobalUnicast';
  return null;
}

/**
 * An address a webhook may not reach: at create and update it is a 400, when sending a failed attempt. Its message
 * (what the partner reads) says only that the host is private or does not resolve, never the address a name
 * resolves to nor its range: an internal name's address is the operator's to know, not the partner's.
 */
export class RefusedAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(
      !address
        ? `${host} does not resolve`
        : `${host} ${address === host ? 'is' : 'resolves to'} a private address, which webhooks may not reach`,
    );
    this.name = 'RefusedAddressError';
  }

  /** What the partner is told: private (any non-public address) or unresolved. */
  get reason(): 'private' | 'unresolved' {
    return this.address ? 'private' : 'unresolved';
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

type Resolve = (
  hostname: string,
  options: object,
  callback: (error: NodeJS.ErrnoException | null, found: { address: string; family: number }[]) => void,
) => void;

/**
 * A `lookup` for sockets that refuses what checkDestination refuses, on the very addresses the socket connects
 * to, as `resolve` (DNS) answers them: a host whose DNS answer changed since the URL was checked (DNS rebinding)
 * fails the connection.
 */
export function guardLookup(resolve: Resolve): (hostname: string, options: object, callback: LookupCallback) => void {
  return (hostname, options, callback) =>
    resolve(hostname, { ...options, all: true }, (error, found) => {
      if (error) return callback(error, []);
      for (const { address } of found) {
        const range = refusedRange(address);
        if (range) return callback(new RefusedAddressError(hostname, address, range), []);
      }
      if ((options as { all?: boolean }).all) return callback(null, found);
      callback(null, found[0].address, found[0].family);
    });
}

/** guardLookup on the system's resolver: what the sender's sockets use. */
export const guardedLookup = guardLookup(lookup as unknown as Resolve);
