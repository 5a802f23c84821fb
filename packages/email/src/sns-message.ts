import { createPublicKey, createVerify, type KeyObject } from 'node:crypto';
import { z } from 'zod';

/**
 * Amazon SNS HTTP(S) delivery: message shape and signature verification, following
 * https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html
 */
export const snsMessageSchema = z.object({
  Type: z.enum(['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation']),
  MessageId: z.string().min(1),
  TopicArn: z.string().min(1),
  Subject: z.string().optional(),
  Message: z.string(),
  Timestamp: z.string().min(1),
  SignatureVersion: z.enum(['1', '2']),
  Signature: z.string().min(1),
  SigningCertURL: z.string().min(1),
  SubscribeURL: z.string().optional(),
  Token: z.string().optional(),
  UnsubscribeURL: z.string().optional(),
});

export type SnsMessage = z.infer<typeof snsMessageSchema>;

/** Only certificates served by Amazon over HTTPS are trusted. */
export function isAmazonUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.hostname.endsWith('.amazonaws.com') && url.username === '' && url.password === '' && url.port === '';
}

/**
 * The one non-production rule beside Amazon's (docs/email.md, "Provider webhooks"): a signing
 * certificate URL under `prefix`, the local stack's event publisher (scripts/ses-events), is
 * trusted too. The prefix comes from EMAIL_PROVIDER_SNS_DEV_CERT_URL, which the configuration
 * refuses in production, so there it is always undefined and only Amazon's certificates count.
 */
export function isDevCertificateUrl(value: string, prefix: string | undefined): boolean {
  return prefix !== undefined && value.startsWith(prefix) && !value.slice(prefix.length).includes('..');
}

/** The canonical string SNS signs: selected keys in byte order, each as `Key\nValue\n`. */
export function snsStringToSign(message: SnsMessage): string {
  const keys: (keyof SnsMessage)[] =
    message.Type === 'Notification'
      ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  let result = '';
  for (const key of keys) {
    const value = message[key];
    if (value === undefined) continue;
    result += `${key}\n${value}\n`;
  }
  return result;
}

export interface SnsCertificateSource {
  /** The public key of the certificate at an (already vetted) amazonaws.com URL. */
  get(url: string): Promise<KeyObject>;
}

export interface SnsCertificateSourceOptions {
  fetch?: typeof fetch;
  /**
   * A PEM certificate to use instead of downloading (EMAIL_PROVIDER_SNS_CERTIFICATE): pins the
   * signing certificate for deployments without outbound internet, and lets tests sign messages.
   */
  pinnedCertificatePem?: string | undefined;
  timeoutMs?: number;
}

/** Downloads signing certificates once per URL and keeps them (they are immutable per URL). */
export function createSnsCertificateSource(options: SnsCertificateSourceOptions = {}): SnsCertificateSource {
  const doFetch = options.fetch ?? fetch;
  const cache = new Map<string, Promise<KeyObject>>();
  const pinned = options.pinnedCertificatePem === undefined ? undefined : createPublicKey(options.pinnedCertificatePem);
  return {
    get(url) {
      if (pinned !== undefined) return Promise.resolve(pinned);
      let entry = cache.get(url);
      if (entry === undefined) {
        entry = (async () => {
          const response = await doFetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? 5_000), redirect: 'error' });
          if (!response.ok) throw new Error(`SNS certificate download failed: HTTP ${response.status}`);
          return createPublicKey(await response.text());
        })();
        cache.set(url, entry);
        // a failed download must not be cached, or one network blip would reject every message
        entry.catch(() => cache.delete(url));
      }
      return entry;
    },
  };
}

export type SnsVerification = { ok: true; message: SnsMessage } | { ok: false; reason: string };

/** Parses and verifies an SNS message (object or JSON text). Never throws. `devCertificateUrl`: see isDevCertificateUrl. */
export async function verifySnsMessage(body: unknown, certificates: SnsCertificateSource, devCertificateUrl?: string): Promise<SnsVerification> {
  let candidate = body;
  if (typeof candidate === 'string') {
    try {
      candidate = JSON.parse(candidate);
    } catch {
      return { ok: false, reason: 'body is not JSON' };
    }
  }
  const parsed = snsMessageSchema.safeParse(candidate);
  if (!parsed.success) return { ok: false, reason: 'not an SNS message' };
  const message = parsed.data;
  if (!isAmazonUrl(message.SigningCertURL) && !isDevCertificateUrl(message.SigningCertURL, devCertificateUrl))
    return { ok: false, reason: 'SigningCertURL is not an https amazonaws.com URL' };
  let key: KeyObject;
  try {
    key = await certificates.get(message.SigningCertURL);
  } catch (error) {
    return { ok: false, reason: `signing certificate unavailable: ${(error as Error).message}` };
  }
  const verifier = createVerify(message.SignatureVersion === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
  verifier.update(snsStringToSign(message), 'utf8');
  let valid = false;
  try {
    valid = verifier.verify(key, message.Signature, 'base64');
  } catch {
    valid = false;
  }
  return valid ? { ok: true, message } : { ok: false, reason: 'signature mismatch' };
}
