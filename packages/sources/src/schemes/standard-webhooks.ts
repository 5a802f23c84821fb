import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { SignatureScheme, SourceHeaders } from './signature-scheme';

const NAMES = ['id', 'timestamp', 'signature'] as const;

/** `webhook-*` headers, or Svix's `svix-*` aliases (Clerk sends those). */
function pickHeaders(headers: SourceHeaders): Record<string, string> | undefined {
  const picked: Record<string, string> = {};
  for (const name of NAMES) {
    const value = headers[`webhook-${name}`] ?? headers[`svix-${name}`];
    if (value === undefined || value === '') return undefined;
    picked[`webhook-${name}`] = value;
  }
  return picked;
}

/**
 * Standard Webhooks (https://www.standardwebhooks.com): HMAC-SHA256 over `id.timestamp.body`,
 * base64 `v1,` signatures (several, space-separated, during a rotation), 5-minute tolerance.
 * Secrets are `whsec_<base64>`; Supabase shows them as `v1,whsec_<base64>`. The maintained
 * `standardwebhooks` package does the cryptography and the constant-time comparison.
 */
export const standardWebhooks: SignatureScheme = {
  name: 'standard-webhooks',
  headers: ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
  prepare(secret) {
    const webhook = new Webhook(secret.startsWith('v1,') ? secret.slice(3) : secret);
    return {
      verify(rawBody, headers) {
        const picked = pickHeaders(headers);
        if (picked === undefined) return { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature header' };
        try {
          webhook.verify(rawBody, picked, { jsonParse: false });
          return { ok: true };
        } catch (error) {
          if (error instanceof WebhookVerificationError) return { ok: false, reason: error.message };
          throw error;
        }
      },
    };
  },
};

/** The delivery id a standard-webhooks sender puts in `webhook-id` (or `svix-id`). */
export function standardWebhookId(headers: SourceHeaders): string | undefined {
  return headers['webhook-id'] ?? headers['svix-id'];
}
