import { afterEach, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../../../../test/webhook-receiver';
import { postJsonBody, type OutboundOptions } from './outbound-http';

const options: OutboundOptions = { timeoutMs: 5_000, connectTimeoutMs: 2_000, allowPrivateTargets: true };

/** What the receiver saw: connections opened, requests answered, and requests it reset unanswered. */
const counts = (receiver: WebhookReceiver) => ({
  connections: receiver.connections(),
  answered: receiver.received.filter((request) => request.status !== 0).length,
  reset: receiver.received.filter((request) => request.status === 0).length,
});

describe('postJsonBody on kept-alive connections', () => {
  let receiver: WebhookReceiver | undefined;
  afterEach(() => receiver?.close());

  it('a kept-alive connection the receiver closed as the request went out is not its failure: the request goes again on a new connection', async () => {
    receiver = await startWebhookReceiver();
    // the second request reuses the first one's connection, which the receiver then resets
    receiver.on('/hook', (_, nth) => (nth === 2 ? 'reset' : 200));
    expect((await postJsonBody(`${receiver.url}/hook`, '{"n":1}', {}, options)).status).toBe(200);
    expect((await postJsonBody(`${receiver.url}/hook`, '{"n":2}', {}, options)).status).toBe(200);
    expect(counts(receiver)).toEqual({ connections: 2, answered: 2, reset: 1 });
  });

  it('a reset on a new connection is the receiver’s answer: it fails, once, with no retry', async () => {
    receiver = await startWebhookReceiver();
    receiver.on('/hook', () => 'reset');
    await expect(postJsonBody(`${receiver.url}/hook`, '{"n":1}', {}, options)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(counts(receiver)).toEqual({ connections: 1, answered: 0, reset: 1 });
  });
});
