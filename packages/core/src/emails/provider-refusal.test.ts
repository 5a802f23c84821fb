import { MessageRejected } from '@aws-sdk/client-sesv2';
import { describe, expect, it } from 'vitest';
import { providerRefusal } from './provider-refusal';

const socketError = (message: string, code: string) => Object.assign(new Error(message), { code, $metadata: { attempts: 3 } });

describe('providerRefusal', () => {
  it("answers SES's refusal as a 503 with SES's reason and what the caller can do", () => {
    const rejected = new MessageRejected({ message: 'Email address is not verified.', $metadata: { httpStatusCode: 400 } });
    expect(providerRefusal(rejected, '; retry with the same Idempotency-Key')).toMatchObject({
      status: 503,
      message: 'The email provider did not accept the message; retry with the same Idempotency-Key: Email address is not verified.',
    });
  });

  it("answers a connection that failed by its code alone: the socket's message names the provider's address", () => {
    const refusal = providerRefusal(socketError('connect ECONNREFUSED 10.0.4.2:443', 'ECONNREFUSED'), '; retry with the same Idempotency-Key');
    expect(refusal).toMatchObject({ status: 503, message: 'The email provider could not be reached (ECONNREFUSED); retry with the same Idempotency-Key' });
    expect(refusal?.message).not.toContain('10.0.4.2');
  });

  it('leaves every other error to its own answer: a database outage is not the provider refusing', () => {
    expect(providerRefusal(Object.assign(new Error('timeout exceeded when trying to connect'), { code: 'ETIMEDOUT' }))).toBeUndefined();
    expect(providerRefusal(new Error('boom'))).toBeUndefined();
  });
});
