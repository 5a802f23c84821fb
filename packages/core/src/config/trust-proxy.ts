import { isIP } from 'node:net';

/**
 * What Fastify's `trustProxy` takes (docs/deploy.md, "Behind a proxy"): `false`, every hop
 * (`true`, unsafe: a client-chosen `X-Forwarded-For` then picks the address every per-address
 * limit counts), a number of hops, or the proxies' addresses and CIDR ranges.
 */
export type TrustProxy = boolean | number | string[];

/** proxy-addr's names for ranges, which Fastify accepts beside addresses */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: `false`/`no`/`0` (the default), `true`/`yes` (every hop), a hop count, or a
 * comma-separated list of addresses, CIDRs and proxy-addr range names. Returns a message for a
 * value that is none of these.
 */
export function parseTrustProxy(value: string | undefined): { ok: true; value: TrustProxy } | { ok: false; error: string } {
  const text = value?.trim().toLowerCase() ?? '';
  if (text === '' || text === 'false' || text === 'no') return { ok: true, value: false };
  if (text === 'true' || text === 'yes') return { ok: true, value: true };
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    return hops === 0 ? { ok: true, value: false } : { ok: true, value: hops };
  }
  const entries = text.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !isAddressOrRange(entry));
  if (bad.length > 0) return { ok: false, error: `must be false, a hop count, or proxy addresses/CIDRs separated by commas (not ${bad.join(', ')})` };
  return { ok: true, value: entries };
}
