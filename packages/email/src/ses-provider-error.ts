/**
 * An error of the email provider's call: the AWS SDK marks every error of its calls (the service's
 * refusals and its connection's socket errors alike) with `$metadata`.
 */
export function isProviderError(error: unknown): error is Error & { $metadata: unknown } {
  return error instanceof Error && '$metadata' in error;
}
