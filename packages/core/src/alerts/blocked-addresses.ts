import { BlockList, isIP } from 'node:net';

/**
 * Addresses an outbound alert call may not reach unless ALERT_ALLOW_PRIVATE_TARGETS is set:
 * loopback, private (RFC 1918, ULA), link-local (cloud metadata lives at 169.254.169.254),
 * CGNAT, unspecified, multicast and reserved ranges.
 */
function createBlockList(): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const) {
    list.addSubnet(network, prefix, 'ipv4');
  }
  for (const [network, prefix] of [
    ['::', 128],
    ['::1', 128],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
    ['64:ff9b::', 96],
  ] as const) {
    list.addSubnet(network, prefix, 'ipv6');
  }
  return list;
}

export function isBlockedAddress(address: string): boolean {
  const blocked = createBlockList();
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  // IPv4-mapped IPv6 (::ffff:a.b.c.d or ::ffff:7f00:1) is judged as the IPv4 address it carries
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return blocked.check(mapped[1], 'ipv4');
  const mappedHex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (mappedHex?.[1] !== undefined && mappedHex[2] !== undefined) {
    const high = parseInt(mappedHex[1], 16);
    const low = parseInt(mappedHex[2], 16);
    return blocked.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, 'ipv4');
  }
  return blocked.check(address, 'ipv6');
}
