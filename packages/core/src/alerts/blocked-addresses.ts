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

/**
 * Cloud instance metadata services outside the link-local ranges: Alibaba Cloud's (in CGNAT space,
 * which tailnets use for their own hosts) and AWS's IPv6 one (in ULA space).
 */
const METADATA_OUTSIDE_LINK_LOCAL = new Set(['100.100.100.200', 'fd00:ec2::254']);

/**
 * Whether an address is never a webhook or alert receiver, even with ALERT_ALLOW_PRIVATE_TARGETS /
 * WEBHOOK_ALLOW_PRIVATE_TARGETS set for receivers on your own network: the link-local ranges
 * (169.254.0.0/16, fe80::/10), where AWS, GCP, Azure and Oracle serve instance metadata and
 * credentials, and the metadata addresses outside them. A receiver on your network has a private
 * or loopback address, which that setting lets through. Anything that is not an IP address counts.
 */
export function isMetadataAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  // an IPv4-mapped address (::ffff:169.254.169.254) is judged as the IPv4 address it is
  const parsed = ipaddr.process(address);
  return parsed.range() === 'linkLocal' || METADATA_OUTSIDE_LINK_LOCAL.has(parsed.toString());
}
