import { describe, expect, it } from '@jest/globals';
import { generateSync, generateURI, stringToBytes, verifySync } from 'otplib';
import { newRecoveryCode, TOTP_ISSUER } from '../../src/modules/users/mfa.service.js';

/** The TOTP the service uses (otplib) against RFC 6238's published test vectors (Appendix B, the SHA-1 ones). */
describe('TOTP (RFC 6238)', () => {
  const secret = stringToBytes('12345678901234567890');
  const vectors: [number, string][] = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ];

  it.each(vectors)('at %i s is %s (8 digits, 30 s steps)', (epoch, code) => {
    expect(generateSync({ secret, epoch, digits: 8, period: 30, algorithm: 'sha1' })).toBe(code);
    expect(verifySync({ secret, epoch, token: code, digits: 8 }).valid).toBe(true);
  });

  it('accepts the step before and after with a 30 s tolerance, not two steps away', () => {
    const epoch = 1111111111;
    const code = generateSync({ secret, epoch });
    expect(code).toMatch(/^\d{6}$/);
    for (const [delta, valid] of [
      [-30, true],
      [30, true],
      [-61, false],
      [61, false],
    ] as const) {
      expect([delta, verifySync({ secret, epoch: epoch + delta, token: code, epochTolerance: 30 }).valid]).toEqual([delta, valid]);
    }
  });

  it('names the service and the user in the otpauth:// URI', () => {
    const uri = new URL(generateURI({ issuer: TOTP_ISSUER, label: 'ana@port-a.example', secret: 'JBSWY3DPEHPK3PXP' }));
    expect(uri.protocol).toBe('otpauth:');
    expect(decodeURIComponent(uri.pathname)).toContain('Gate service:ana@port-a.example');
    expect(uri.searchParams.get('secret')).toBe('JBSWY3DPEHPK3PXP');
    expect(uri.searchParams.get('issuer')).toBe('Gate service');
  });

  it('makes recovery codes of 10 random characters none of which reads as another', () => {
    const codes = Array.from({ length: 200 }, newRecoveryCode);
    for (const code of codes) expect(code).toMatch(/^[a-hjkmnp-z2-9]{5}-[a-hjkmnp-z2-9]{5}$/);
    expect(new Set(codes).size).toBe(codes.length);
  });
});
