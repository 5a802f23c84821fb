import { describeProviderError, isProviderError } from '@waymark/email/ses-provider-error';
import { unavailable, type AppError } from '../errors/app-error';

/**
 * What a synchronous caller is told when the email provider refused a send or could not be reached
 * (sendEmail rethrows the provider's error for a retry): a 503 with the provider's reason and `then`,
 * what the caller can do. Undefined for any other error, which keeps its own answer (a database
 * outage is the error handler's 503, never the provider's).
 */
export function providerRefusal(error: unknown, then = ''): AppError | undefined {
  if (!isProviderError(error)) return undefined;
  const { refused, reason } = describeProviderError(error);
  return unavailable(refused ? `The email provider did not accept the message${then}: ${reason}` : `${reason}${then}`);
}
