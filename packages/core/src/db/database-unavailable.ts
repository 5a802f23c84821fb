import { isProviderError } from '@waymark/email/ses-provider-error';

/**
 * True for errors that mean "PostgreSQL cannot be reached right now", as opposed to a bad query:
 * the pool could not connect (refused, timed out), a connection died mid-query (server killed or
 * restarted), or the server is starting or shutting down. The api answers these with a 503 that
 * says so (never the driver's message), and the pool reconnects on its own once the server is back.
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
// SQLSTATE class 08 (connection exception) and 57P01-57P03 (admin shutdown, crash shutdown, cannot connect now)
const SERVER_CODES = new Set(['57P01', '57P02', '57P03']);
const POOL_MESSAGES = ['Connection terminated', 'timeout exceeded when trying to connect', 'Client has encountered a connection error'];

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // a socket error of the email provider's connection carries the same codes: the provider's, never the database's
  if (isProviderError(error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08'))) return true;
  if (error instanceof AggregateError && error.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
  return POOL_MESSAGES.some((message) => error.message.startsWith(message));
}
