import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import proxyAddr from 'proxy-addr';
import type { TrustProxy } from '../../config/config.js';

/** Whether the hop at `address` (0: the peer of the connection) is a proxy whose `X-Forwarded-For` is believed. */
export type TrustFn = (address: string, hop: number) => boolean;

/** TRUST_PROXY as a function, the one Express's `trust proxy` gets and the Socket.IO handshake uses. */
export function compileTrust(value: TrustProxy): TrustFn {
  if (value === true) return () => true;
  if (value === false) return () => false;
  if (typeof value === 'number') return (_address, hop) => hop < value;
  return proxyAddr.compile(value);
}

/**
 * The client's address, as Express's `req.ip` has it: the connection's peer, or, when that peer is a trusted proxy,
 * the nearest address in `X-Forwarded-For` that is not one (so a client cannot name itself by sending the header).
 */
export function clientAddress(request: IncomingMessage, trust: TrustFn): string {
  try {
    return proxyAddr(request, trust) ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Who an address stands for when counting: an IPv4 address itself (IPv4-mapped IPv6 included), an IPv6 address its
 * /64, as a single host usually holds a whole /64 and could otherwise take a fresh address for every attempt.
 */
export function addressBucket(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${(parsed as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}
