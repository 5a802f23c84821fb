import { isSnsUrl, type SnsMessage } from '@waymark/email/sns-message';

/**
 * Confirms an SNS subscription by fetching its SubscribeURL (only an https URL on sns.<region>.amazonaws.com).
 * Returns false instead of throwing, so the caller can log and still answer SNS.
 */
export async function confirmSnsSubscription(message: SnsMessage, options: { fetch?: typeof fetch; timeoutMs?: number } = {}): Promise<boolean> {
  if (message.SubscribeURL === undefined || !isSnsUrl(message.SubscribeURL)) return false;
  try {
    const response = await (options.fetch ?? fetch)(message.SubscribeURL, { signal: AbortSignal.timeout(options.timeoutMs ?? 5_000), redirect: 'error' });
    return response.ok;
  } catch {
    return false;
  }
}
