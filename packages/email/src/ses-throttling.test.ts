import { describe, expect, it } from 'vitest';
import { isSesThrottling } from './ses-throttling';

const sdkError = (name: string, status: number) => Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });

describe('isSesThrottling', () => {
  it('knows the rate refusals of SESv2, SES v1 and the query protocol', () => {
    for (const name of ['Throttling', 'ThrottlingException', 'TooManyRequestsException', 'LimitExceededException']) {
      expect(isSesThrottling(sdkError(name, 400)), name).toBe(true);
    }
    expect(isSesThrottling(sdkError('Unknown', 429))).toBe(true);
  });

  it('leaves refusals of the message and outages to the normal retry count', () => {
    expect(isSesThrottling(sdkError('MessageRejected', 400))).toBe(false);
    expect(isSesThrottling(sdkError('InternalFailure', 500))).toBe(false);
    expect(isSesThrottling(new Error('socket hang up'))).toBe(false);
    expect(isSesThrottling(undefined)).toBe(false);
  });
});
