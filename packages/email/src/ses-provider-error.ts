import { SESv2ServiceException } from '@aws-sdk/client-sesv2';

/**
 * An error of the email provider's call: the AWS SDK marks every error of its calls (the service's
 * refusals and its connection's socket errors alike) with `$metadata`.
 */
export function isProviderError(error: unknown): error is Error & { $metadata: unknown } {
  return error instanceof Error && '$metadata' in error;
}

/**
 * A provider error as a caller may read it. SES's own refusal keeps its reason ("Email address is
 * not verified"); a connection that failed says only its code, because a socket error's message
 * names the endpoint's address (`connect ECONNREFUSED 10.0.4.2:443`), which is the operator's to
 * know, not an ingest key's (docs/security.md). The full message stays on the send's row.
 */
export function describeProviderError(error: Error): { refused: boolean; reason: string } {
  if (SESv2ServiceException.isInstance(error)) return { refused: true, reason: error.message };
  const code = (error as { code?: unknown }).code;
  return { refused: false, reason: `The email provider could not be reached${typeof code === 'string' ? ` (${code})` : ''}` };
}
