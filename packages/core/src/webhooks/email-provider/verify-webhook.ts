import { readBasicPassword, sameSecret } from '../../auth/api-key-secret';
import { verifySnsMessage, type SnsCertificateSource, type SnsMessage, type SnsTrust } from '@waymark/email/sns-message';

export const EMAIL_SERVICE_NOT_CONFIGURED = 'Email service not configured';
export const WEBHOOK_VERIFICATION_FAILED = 'Webhook verification failed';
export const SIGNING_CERTIFICATE_UNAVAILABLE = 'Signing certificate unavailable; retry later';

export type WebhookVerification =
  | { ok: true; message: SnsMessage }
  | { ok: false; error: typeof EMAIL_SERVICE_NOT_CONFIGURED | typeof WEBHOOK_VERIFICATION_FAILED | typeof SIGNING_CERTIFICATE_UNAVAILABLE; reason: string };

/**
 * Two independent checks (docs/email.md): the Basic password must equal
 * EMAIL_PROVIDER_WEBHOOK_SECRET, and the SNS signature must verify against a certificate from
 * sns.<region>.amazonaws.com, on a message of a trusted topic sent within the hour (`trust`).
 * Without a secret the endpoint is closed. A certificate that cannot be downloaded is
 * SIGNING_CERTIFICATE_UNAVAILABLE, which the route answers with a 503 that SNS retries.
 */
export async function verifyEmailProviderWebhook(
  input: { authorization: string | undefined; body: unknown },
  options: { secret: string | undefined; certificates: SnsCertificateSource; trust?: SnsTrust },
): Promise<WebhookVerification> {
  if (options.secret === undefined) return { ok: false, error: EMAIL_SERVICE_NOT_CONFIGURED, reason: 'EMAIL_PROVIDER_WEBHOOK_SECRET is not set' };
  const password = readBasicPassword(input.authorization);
  if (password === undefined || !sameSecret(password, options.secret))
    return { ok: false, error: WEBHOOK_VERIFICATION_FAILED, reason: 'basic auth password mismatch' };
  const verified = await verifySnsMessage(input.body, options.certificates, options.trust);
  // a certificate that could not be downloaded says nothing about the message: not a refusal
  if (!verified.ok) return { ok: false, error: verified.unavailable ? SIGNING_CERTIFICATE_UNAVAILABLE : WEBHOOK_VERIFICATION_FAILED, reason: verified.reason };
  return { ok: true, message: verified.message };
}
