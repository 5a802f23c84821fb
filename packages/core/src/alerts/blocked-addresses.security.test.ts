import { describe, expect, it } from 'vitest';
import { isBlockedAddress, isMetadataAddress } from './blocked-addresses';

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

/**
 * With *_ALLOW_PRIVATE_TARGETS (receivers on your own network) an operator-given URL still never
 * reaches the instance's metadata service, which hands out cloud credentials.
 */
describe('security: isMetadataAddress refuses link-local and cloud metadata addresses, private ones pass', () => {
  it.each([
    '169.254.169.254', // AWS, GCP, Azure, Oracle
    '169.254.170.2', // ECS task credentials
    '::ffff:169.254.169.254',
    'fe80::1',
    'fd00:ec2::254', // AWS IPv6
    '100.100.100.200', // Alibaba Cloud
    'metadata.google.internal', // not an address at all
  ])('refuses %s', (address) => {
    expect(isMetadataAddress(address)).toBe(true);
  });

  it.each(['10.0.0.5', '192.168.1.10', '172.16.0.1', '127.0.0.1', '::1', 'fd12:3456::1', '100.64.0.1', '1.1.1.1'])('allows %s', (address) => {
    expect(isMetadataAddress(address)).toBe(false);
  });
});
