/**
 * A provider call that broke after its request may have reached the provider, with no answer back
 * (the connection was reset or timed out): whether the provider accepted the message is unknown,
 * so the send must not be tried again as if it had been refused (docs/email.md, "Exactly once").
 */
export class ProviderOutcomeUnknownError extends Error {
  override readonly name = 'ProviderOutcomeUnknownError';
}

/**
 * Node's and undici's codes for a connection that broke or timed out once it was open: the request
 * may have been sent whole. A connection never made (refused, no such host) or an answer from the
 * provider (even an error) says the message was not accepted, and is not among these.
 */
const BROKEN_AFTER_CONNECT = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Whether a provider call's error leaves its outcome unknown: no answer, and a connection that broke or timed out after it opened. */
export function outcomeUnknown(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { $metadata, $response, code, name } = error as { $metadata?: { httpStatusCode?: unknown }; $response?: unknown; code?: unknown; name?: unknown };
  if ($metadata?.httpStatusCode !== undefined || $response !== undefined) return false;
  return (typeof code === 'string' && BROKEN_AFTER_CONNECT.has(code)) || name === 'TimeoutError';
}
