import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { guardLookup, hostOf, RefusedAddressError, refusedRange } from '../../src/modules/webhooks/webhook-url.js';

/** IPv4 ranges a webhook may never reach, as CIDRs. */
const NON_PUBLIC_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '224.0.0.0/4',
  '240.0.0.0/4',
];

const hex = (n: number) => n.toString(16);
const v4Of = (bytes: number[]) => bytes.join('.');
/** The two 16-bit groups of an IPv4 address, as IPv6 writes them. */
const groupsOf = (bytes: number[]) => [hex((bytes[0] << 8) | bytes[1]), hex((bytes[2] << 8) | bytes[3])];

const byte = fc.integer({ min: 0, max: 255 });
const v4Bytes = fc.tuple(byte, byte, byte, byte);

/** An address inside the IPv4 CIDR: its prefix bits kept, the rest random. */
const inV4 = (range: string) => {
  const [base, bits] = ipaddr.parseCIDR(range);
  const start = base.toByteArray().reduce((n, b) => n * 256 + b, 0);
  const size = 2 ** (32 - bits);
  return fc.integer({ min: 0, max: size - 1 }).map((offset) => {
    const n = start + offset;
    return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  });
};
const nonPublicV4 = fc.constantFrom(...NON_PUBLIC_V4).chain(inV4);
const publicV4 = v4Bytes.filter((bytes) => refusedRange(v4Of(bytes)) === null);

/** Every IPv6 way to write an address that carries this IPv4 address, or reaches it. */
function v6Forms(bytes: number[]): string[] {
  const [high, low] = groupsOf(bytes);
  const v4 = v4Of(bytes);
  return [
    `::ffff:${v4}`,
    `::ffff:${high}:${low}`,
    `0:0:0:0:0:ffff:${high}:${low}`,
    `::${v4}`,
    `::${high}:${low}`,
    `64:ff9b::${v4}`,
    `64:ff9b::${high}:${low}`,
    `2002:${high}:${low}::1`,
    `2001:0:${high}:${low}::1`,
    `::ffff:0:${v4}`,
  ];
}

/** As the sender sees a URL's host: the literal after WHATWG URL parsing (which rewrites `::a.b.c.d` in hex). */
const asUrlHost = (address: string) => hostOf(new URL(`http://[${address}]:8080/hook`));

/** An IPv6 address inside the CIDR: its prefix kept, the rest random. */
const inV6 = (range: string) => {
  const [base, bits] = ipaddr.parseCIDR(range);
  const prefix = base.toByteArray();
  return fc.uint8Array({ minLength: 16, maxLength: 16 }).map((random) => {
    const bytes = prefix.map((b, i) => {
      const keep = Math.max(0, Math.min(8, bits - i * 8));
      const mask = (0xff << (8 - keep)) & 0xff;
      return (b & mask) | (random[i] & ~mask & 0xff);
    });
    return ipaddr.fromByteArray(bytes).toString();
  });
};

describe('webhook destinations (refusedRange)', () => {
  it('refuses every IPv6 form of a loopback, private, link-local or other non-public IPv4 address, as written and as a URL host', () => {
    fc.assert(
      fc.property(nonPublicV4, (bytes) => {
        expect(refusedRange(v4Of(bytes))).not.toBeNull();
        for (const form of v6Forms(bytes)) {
          expect([form, refusedRange(form)]).not.toEqual([form, null]);
          expect([form, refusedRange(asUrlHost(form))]).not.toEqual([form, null]);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('judges IPv4-mapped and NAT64 addresses as the IPv4 address they reach; refuses the deprecated forms whatever they carry', () => {
    fc.assert(
      fc.property(publicV4, (bytes) => {
        const [high, low] = groupsOf(bytes);
        const v4 = v4Of(bytes);
        for (const reaching of [`::ffff:${v4}`, `64:ff9b::${v4}`, `64:ff9b::${high}:${low}`]) {
          expect([reaching, refusedRange(reaching), refusedRange(asUrlHost(reaching))]).toEqual([reaching, null, null]);
        }
        for (const deprecated of [`::${v4}`, `2002:${high}:${low}::1`, `2001:0:${high}:${low}::1`, `::ffff:0:${v4}`]) {
          expect([deprecated, refusedRange(asUrlHost(deprecated))]).not.toEqual([deprecated, null]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('refuses the whole of the IPv6 ranges that are not on the internet', () => {
    const ranges = ['::/96', 'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8', '2002::/16', '2001::/32', '64:ff9b:1::/48', '100::/64'];
    fc.assert(
      fc.property(fc.constantFrom(...ranges).chain(inV6), (address) => {
        expect([address, refusedRange(address)]).not.toEqual([address, null]);
      }),
      { numRuns: 1000 },
    );
  });

  it('allows an IPv6 address only if it is global unicast outside every special range, or reaches a public IPv4 address', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        const address = ipaddr.fromByteArray([...bytes]) as ipaddr.IPv6;
        if (refusedRange(address.toString()) !== null) return;
        const embedded = ipaddr.fromByteArray([...bytes.slice(12)]).toString();
        const reachesV4 = address.isIPv4MappedAddress() || address.match(ipaddr.parseCIDR('64:ff9b::/96'));
        if (reachesV4) expect(refusedRange(embedded)).toBeNull();
        else {
          expect(address.match(ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number])).toBe(true);
          expect(address.range()).toBe('unicast');
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('names the range it refuses', () => {
    expect(
      ['::7f00:1', '::', '::1', 'fec0::1', '2002:a00:1::1', '2001::1', '64:ff9b::a00:1', '::ffff:0:7f00:1', '4000::1', 'not-an-ip'].map(
        refusedRange,
      ),
    ).toEqual([
      'ipv4Compatible',
      'unspecified',
      'loopback',
      'deprecatedSiteLocal',
      '6to4',
      'teredo',
      'private',
      'rfc6145',
      'notGlobalUnicast',
      'not an IP address',
    ]);
    expect(['8.8.8.8', '2001:4860:4860::8888', '::ffff:8.8.8.8', '64:ff9b::808:808'].map(refusedRange)).toEqual([null, null, null, null]);
  });
});

describe('the sockets’ lookup (guardLookup)', () => {
  /** A resolver that answers these addresses for every name. */
  const answering =
    (...addresses: string[]) =>
    (_host: string, _options: object, callback: (error: null, found: { address: string; family: number }[]) => void) =>
      callback(
        null,
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
  const lookUp = (lookup: ReturnType<typeof guardLookup>, options: object = {}) =>
    new Promise<{ error: unknown; address: unknown }>((resolve) =>
      lookup('receiver.example', options, (error, address) => resolve({ error, address })),
    );

  it('fails the connection when the name resolves to any IPv6 form of a non-public address', async () => {
    const forms = fc.sample(nonPublicV4, 30).flatMap(v6Forms);
    for (const form of [...forms, '::', '::1', 'fe80::1', 'fd12:3456::1', 'fec0::1']) {
      const { error } = await lookUp(guardLookup(answering('2001:4860:4860::8888', form)));
      expect([form, error instanceof RefusedAddressError]).toEqual([form, true]);
      // It says the name is private, not what it resolves to.
      expect([form, (error as Error).message]).toEqual([
        form,
        'receiver.example resolves to a private address, which webhooks may not reach',
      ]);
    }
  });

  it('answers the addresses of a name that resolves to public ones only, as the socket asked', async () => {
    const lookup = guardLookup(answering('2001:4860:4860::8888', '8.8.8.8'));
    expect(await lookUp(lookup)).toEqual({ error: null, address: '2001:4860:4860::8888' });
    expect(await lookUp(lookup, { all: true })).toEqual({
      error: null,
      address: [
        { address: '2001:4860:4860::8888', family: 6 },
        { address: '8.8.8.8', family: 4 },
      ],
    });
  });
});
