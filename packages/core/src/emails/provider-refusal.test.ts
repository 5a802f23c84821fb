import { describe, expect, it } from 'vitest';
import { providerRefusal } from './provider-refusal';

const sdkError = (message: string, code: string) => Object.assign(new Error(message), { code, $metadata: { attempts: 1 } });

describe('providerRefusal', () => {
  it("answers the provider's error as a 503 with its reason and what the caller can do", () => {
    const refusal = providerRefusal(sdkError('read ECONNRESET', 'ECONNRESET'), '; retry with the same Idempotency-Key');
    expect(refusal).toMatchObject({
      status: 503,
      message: 'The email provider did not accept the message; retry with the same Idempotency-Key: read ECONNRESET',
    });
  });

  it('leaves every other error to its own answer: a database outage is not the provider refusing', () => {
    expect(providerRefusal(Object.assign(new Error('timeout exceeded when trying to connect'), { code: 'ETIMEDOUT' }))).toBeUndefined();
    expect(providerRefusal(new Error('boom'))).toBeUndefined();
  });
});
