import { createHmac } from 'node:crypto';
import type { SignatureScheme } from './signature-scheme';
import { equalsHex } from './constant-time';

export interface HmacHexOptions {
  /** the request header carrying the digest */
  header: string;
  /** Segment signs with SHA-1; most others with SHA-256 (the default) */
  algorithm?: 'sha1' | 'sha256' | 'sha512';
  /** text before the hex digest, e.g. `sha256=` for GitHub-style headers */
  prefix?: string;
}

/** A plain HMAC hex digest of the raw body in one header (no timestamp, so no replay window of its own). */
export function hmacHex(options: HmacHexOptions): SignatureScheme {
  const header = options.header.toLowerCase();
  const algorithm = options.algorithm ?? 'sha256';
  const prefix = options.prefix ?? '';
  return {
    name: `hmac-${algorithm}-hex`,
    headers: [header],
    prepare(secret) {
      return {
        verify(rawBody, headers) {
          const value = headers[header];
          if (value === undefined || value === '') return { ok: false, reason: `missing ${header} header` };
          if (!value.startsWith(prefix)) return { ok: false, reason: `${header} header does not start with ${prefix}` };
          const expected = createHmac(algorithm, secret).update(rawBody).digest();
          return equalsHex(expected, value.slice(prefix.length).trim()) ? { ok: true } : { ok: false, reason: 'no matching signature' };
        },
      };
    },
  };
}
