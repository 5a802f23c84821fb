import { randomBytes } from 'node:crypto';

/**
 * A standard-webhooks signing secret: `whsec_` + base64 of 32 random bytes (the format the
 * `standardwebhooks` and `svix` libraries take as-is on the receiving side).
 */
export function generateEndpointSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
