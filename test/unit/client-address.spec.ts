import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { clientAddress, compileTrust } from '../../src/common/http/client-address.js';
import { loadConfig } from '../../src/config/config.js';

/** A request as it reaches the service: the connection's peer, and the X-Forwarded-For its sender wrote. */
const requestFrom = (peer: string, forwardedFor?: string) =>
  ({ socket: { remoteAddress: peer }, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} }) as unknown as IncomingMessage;

describe("the client's address", () => {
  const byDefault = compileTrust(loadConfig({}).trustProxy);

  it.each([
    ["Docker's bridge gateway (a published port)", '172.17.0.1'],
    ['an SNAT balancer on a private network', '10.1.2.3'],
    ['a private network of 192.168', '192.168.1.20'],
    ['an IPv6 unique local address', 'fd00::2'],
    ['a link-local address', '169.254.10.1'],
  ])('by default, a peer on %s is the client: its X-Forwarded-For is not believed', (_what, peer) => {
    expect(clientAddress(requestFrom(peer, '203.0.113.9'), byDefault)).toBe(peer);
  });

  it.each(['127.0.0.1', '::1', '::ffff:127.0.0.1'])('by default, a proxy on the same machine (%s) is believed', (peer) => {
    expect(clientAddress(requestFrom(peer, '203.0.113.9'), byDefault)).toBe('203.0.113.9');
  });

  it('believes private proxies when TRUST_PROXY names them', () => {
    const trust = compileTrust(loadConfig({ TRUST_PROXY: 'loopback,uniquelocal' }).trustProxy);
    expect(clientAddress(requestFrom('10.1.2.3', '203.0.113.9'), trust)).toBe('203.0.113.9');
    // A client's own X-Forwarded-For, passed on by the proxy, names an address the proxy did not see: not believed.
    expect(clientAddress(requestFrom('10.1.2.3', '198.51.100.7, 203.0.113.9'), trust)).toBe('203.0.113.9');
  });
});
