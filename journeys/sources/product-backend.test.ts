import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import productBackend from './product-backend';

/** The worked example of docs/sources.md "Writing a source": signature, schema and transform. */
describe('product-backend source', () => {
  const secret = 'a-long-random-secret';
  const verifier = productBackend.auth.type === 'signature' ? productBackend.auth.scheme.prepare(secret) : undefined;
  const body = JSON.stringify({ id: 'msg-1', type: 'account.created', account: { id: 'acct_1', email: 'ada@example.com', plan: 'pro' } });
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

  it('verifies X-Product-Signature over the raw body', () => {
    expect(verifier!.verify(Buffer.from(body), { 'x-product-signature': signature })).toEqual({ ok: true });
    expect(verifier!.verify(Buffer.from(body + '\n'), { 'x-product-signature': signature })).toMatchObject({ ok: false });
  });

  it('maps account.created to user.signed_up (the welcome series trigger) with the message id as key', () => {
    const payload = productBackend.schema!.parse(JSON.parse(body));
    expect(productBackend.transform(payload, {})).toEqual({
      event: 'user.signed_up',
      userId: 'acct_1',
      userEmail: 'ada@example.com',
      eventProperties: { messageId: 'msg-1', plan: 'pro' },
      contactProperties: { plan: 'pro' },
      idempotencyKey: 'msg-1',
    });
  });

  it('rejects an unknown message type at the schema (400 with the path)', () => {
    const result = productBackend.schema!.safeParse({ id: 'msg-2', type: 'account.renamed', account: { id: 'acct_1' } });
    expect(result.error?.issues[0]?.path).toEqual(['type']);
  });
});
