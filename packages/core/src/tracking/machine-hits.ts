import { BlockList, isIP } from 'node:net';
import type { MachineReason } from '../db/schema';
import { APPLE_MPP_RANGES, APPLE_MPP_USER_AGENT, SCANNER_USER_AGENT_MARKERS } from './machine-agents';

/** What the request alone says about a tracking hit. */
export interface TrackingRequest {
  method: string;
  userAgent: string | null;
  /** the client address as the api trusts it (X-Forwarded-For only with TRUST_PROXY=true) */
  clientAddress: string | null;
}

const appleRanges = new BlockList();
for (const range of APPLE_MPP_RANGES) appleRanges.addSubnet(range.address, range.prefix, range.family);

function isAppleAddress(address: string | null): boolean {
  if (address === null) return false;
  // an IPv4 client on a dual-stack socket arrives as ::ffff:a.b.c.d
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  const family = isIP(plain);
  if (family === 0) return false;
  return appleRanges.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}

export function isScannerUserAgent(userAgent: string | null): boolean {
  if (userAgent === null) return false;
  const lower = userAgent.toLowerCase();
  return SCANNER_USER_AGENT_MARKERS.some((marker) => lower.includes(marker));
}

/**
 * The machine reasons a single request shows (docs/email.md, "Machine opens and clicks"), or null
 * when it looks like a person. too_fast and honeypot need the database (the send's time, the
 * other clicks, the link), so the click statement decides those.
 */
export function machineReasonOf(kind: 'open' | 'click', request: TrackingRequest): MachineReason | null {
  if (request.method.toUpperCase() === 'HEAD') return 'head_request';
  if (isScannerUserAgent(request.userAgent)) return 'scanner_user_agent';
  if (kind === 'open' && (request.userAgent ?? '').trim() === APPLE_MPP_USER_AGENT && isAppleAddress(request.clientAddress)) return 'apple_mpp';
  return null;
}
