import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

/**
 * IANA gives out global unicast IPv6 addresses only from 2000::/3; everything else there (the
 * IPv4-compatible ::/96 among them, which ipaddr.js files under `unicast`) reaches no public host.
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Whether an outbound alert or webhook call may not reach this address (unless
 * ALERT_ALLOW_PRIVATE_TARGETS / WEBHOOK_ALLOW_PRIVATE_TARGETS is set). The ranges are ipaddr.js's
 * classification of the IANA special-purpose registries, not a hand list: any address it does not
 * call `unicast` is refused (loopback, private, link-local where cloud metadata lives, CGNAT,
 * documentation, multicast, reserved, …), and so are the IPv6 prefixes that carry or translate an
 * IPv4 address (NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32), since
 * the IPv4 host behind them may be internal. An IPv4-mapped address (::ffff:a.b.c.d) is judged as
 * the IPv4 address it is. Anything that is not an IP address is refused.
 */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return ipaddr.IPv4.parse(address).range() !== 'unicast';
  if (family !== 6) return true;
  const parsed = ipaddr.IPv6.parse(address);
  if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().range() !== 'unicast';
  return parsed.range() !== 'unicast' || !parsed.match(GLOBAL_UNICAST_V6);
}
