import { createHmac } from 'node:crypto';
import { SIGNATURE_TOLERANCE_SECONDS, type SignatureScheme } from './signature-scheme';
import { equalsHex } from './constant-time';

/**
 * The timestamped scheme Stripe uses (`Stripe-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]`):
 * HMAC-SHA256 over `${t}.${rawBody}` in hex. Several `v1` values arrive while a secret is being
 * rolled; any one matching passes. Other schemes in the header (`v0`) are ignored, and the
 * timestamp must be within 5 minutes of now, so a captured request cannot be replayed later.
 */
export function timestampedHmac(options: { header: string }): SignatureScheme {
  const header = options.header.toLowerCase();
  return {
    name: 'timestamped-hmac-sha256',
    headers: [header],
    prepare(secret) {
      return {
        verify(rawBody, headers) {
          const value = headers[header];
          if (value === undefined || value === '') return { ok: false, reason: `missing ${header} header` };
          let timestamp: string | undefined;
          const signatures: string[] = [];
          for (const part of value.split(',')) {
            const at = part.indexOf('=');
            const key = part.slice(0, at).trim();
            const item = part.slice(at + 1).trim();
            if (key === 't') timestamp = item;
            else if (key === 'v1') signatures.push(item);
          }
          if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: `${header} header has no valid timestamp` };
          if (signatures.length === 0) return { ok: false, reason: `${header} header has no v1 signature` };
          if (Math.abs(Date.now() / 1000 - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS)
            return { ok: false, reason: 'timestamp outside the 5-minute tolerance' };
          const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
          return signatures.some((signature) => equalsHex(expected, signature)) ? { ok: true } : { ok: false, reason: 'no matching signature' };
        },
      };
    },
  };
}
