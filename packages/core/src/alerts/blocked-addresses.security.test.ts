import { describe, expect, it } from 'vitest';
import { isBlockedAddress } from './blocked-addresses';

/** The ranges the hand-written list missed (issue: SSRF), now from ipaddr.js's classification. */
describe('security: isBlockedAddress covers every special-purpose range', () => {
  it.each([
    '::7f00:1', // IPv4-compatible ::/96
    '::a00:1',
    '64:ff9b::7f00:1', // NAT64
    '64:ff9b:1::a00:1', // local-use NAT64
    '2002:7f00:1::1', // 6to4
    '2002:c0a8:101::1',
    '2001::1', // Teredo
    '2001:db8::1', // documentation
    '100::1', // discard-only
    'fec0::1', // deprecated site-local
    '::ffff:169.254.169.254',
    '::ffff:0:a9fe:a9fe', // SIIT (rfc6145)
    '255.255.255.255',
    '192.0.2.1',
    '198.51.100.7',
    '203.0.113.7',
    '192.88.99.1',
    '5f00::1',
  ])('refuses %s', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each(['1.1.1.1', '2a00:1450:4001:82b::200e', '2606:4700:4700::1111', '::ffff:1.1.1.1'])('allows the global address %s', (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });
});
