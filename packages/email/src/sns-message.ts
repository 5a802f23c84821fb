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

/** SNS's own regional endpoint, `sns.<region>.amazonaws.com`; not S3 or any other amazonaws.com host a stranger can serve files from. */
const SNS_HOST = /^sns\.[a-z]{2}(-[a-z]+)+-\d+\.amazonaws\.com$/;

/** An https URL on SNS's regional host, with no credentials and no port (a SubscribeURL, for one). */
export function isSnsUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && SNS_HOST.test(url.hostname) && url.username === '' && url.password === '' && url.port === '';
}

/**
 * The one decision on which SigningCertURL may be fetched and trusted: a `.pem` file on SNS's
 * regional host (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html).
 */
export function isSnsSigningCertUrl(value: string): boolean {
  return isSnsUrl(value) && new URL(value).pathname.endsWith('.pem');
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
  /** The public key of the certificate at an (already vetted) SNS URL. */
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

class CertificateRefusedError extends Error {}

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
          // SNS's host says there is no such certificate: the message can never be verified
          if (response.status >= 400 && response.status < 500) throw new CertificateRefusedError(`SNS certificate download refused: HTTP ${response.status}`);
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

/**
 * `unavailable`: the signing certificate could not be downloaded (no answer, a timeout, a 5xx), so
 * the message is neither verified nor refused; the caller answers so that SNS tries again (a 4xx
 * would drop the message). A certificate SNS's host says it does not have (a 4xx) is a refusal.
 */
export type SnsVerification = { ok: true; message: SnsMessage } | { ok: false; reason: string; unavailable?: true };

/** How far a message's Timestamp may be from now: SNS stops retrying a delivery well within it, so an older one is a replay. */
export const SNS_MAX_MESSAGE_AGE_MS = 3_600_000;

export interface SnsTrust {
  /** SES_SNS_TOPIC_ARNS: the topics whose messages are accepted (unset: any topic) */
  topicArns?: readonly string[] | undefined;
  now?: () => number;
  /** EMAIL_PROVIDER_SNS_DEV_CERT_URL: the local stack's signing certificates (see isDevCertificateUrl) */
  devCertificateUrl?: string | undefined;
}

/** The message's own claims (checked before its certificate is fetched; the signature then covers them). */
function untrustedClaim(message: SnsMessage, trust: SnsTrust): string | undefined {
  if (!isSnsSigningCertUrl(message.SigningCertURL) && !isDevCertificateUrl(message.SigningCertURL, trust.devCertificateUrl))
    return 'SigningCertURL is not an https .pem URL on sns.<region>.amazonaws.com';
  if (trust.topicArns !== undefined && !trust.topicArns.includes(message.TopicArn)) return `TopicArn ${message.TopicArn} is not in SES_SNS_TOPIC_ARNS`;
  const sentAt = Date.parse(message.Timestamp);
  const now = trust.now?.() ?? Date.now();
  if (Number.isNaN(sentAt) || Math.abs(now - sentAt) > SNS_MAX_MESSAGE_AGE_MS) return `Timestamp ${message.Timestamp} is not within an hour of now`;
  return undefined;
}

/** Parses and verifies an SNS message (object or JSON text). Never throws. */
export async function verifySnsMessage(body: unknown, certificates: SnsCertificateSource, trust: SnsTrust = {}): Promise<SnsVerification> {
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
  const untrusted = untrustedClaim(message, trust);
  if (untrusted !== undefined) return { ok: false, reason: untrusted };
  let key: KeyObject;
  try {
    key = await certificates.get(message.SigningCertURL);
  } catch (error) {
    const reason = `signing certificate unavailable: ${(error as Error).message}`;
    return error instanceof CertificateRefusedError ? { ok: false, reason } : { ok: false, reason, unavailable: true };
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
