/**
 * SES refusing a call for its rate, not for the message: SESv2 answers `TooManyRequestsException`
 * (429) over the account's maximum send rate and `LimitExceededException` over a limit, SES v1 and
 * the AWS query protocol `Throttling` / `ThrottlingException`. Such a send is tried again later
 * and never counts as a refusal of the message (docs/email.md, "Send rate").
 */
const THROTTLING_NAMES = new Set(['Throttling', 'ThrottlingException', 'TooManyRequestsException', 'LimitExceededException']);

export function isSesThrottling(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, $metadata } = error as { name?: unknown; $metadata?: { httpStatusCode?: unknown } };
  return (typeof name === 'string' && THROTTLING_NAMES.has(name)) || $metadata?.httpStatusCode === 429;
}
