import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Db } from '../../db/database';
import { withScratchDatabase } from '../../../../../test/scratch-database';
import { startWebhookReceiver, type WebhookReceiver } from '../../../../../test/webhook-receiver';
import { attemptWebhookDelivery } from './deliver-webhook';
import { fanOutOutboundEvent } from './outbound-dispatch';
import { recordOutboundEvent } from '../../outbox/outbox';
import { sealSecret } from '../../tokens/sealed-secret';

/** One attempt against a local receiver, in a scratch database (no dispatcher listens there). */
describe('attemptWebhookDelivery: SSRF guard, no redirects, 1 KiB of the answer, timeout', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver?.close());

  async function deliveryTo(db: Db, path: string): Promise<string> {
    await db.deleteFrom('webhookEndpoints').execute();
    await db
      .insertInto('webhookEndpoints')
      .values({ url: `${receiver.url}${path}`, events: ['contact.created'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
      .execute();
    await recordOutboundEvent(db, 'contact.created', { userId: path });
    const event = await db.selectFrom('outboundEvents').select('id').where('dispatchedAt', 'is', null).executeTakeFirstOrThrow();
    const [deliveryId] = await fanOutOutboundEvent(db, event.id);
    return deliveryId!;
  }
  const attempt = (db: Db, deliveryId: string, options: { allowPrivateTargets: boolean; timeoutMs?: number }) =>
    attemptWebhookDelivery(
      {
        db,
        retry: { initialIntervalMs: 30_000, maximumIntervalMs: 3_600_000, windowMs: 86_400_000 },
        disableAfterMs: 72 * 3_600_000,
        outbound: { timeoutMs: options.timeoutMs ?? 5_000, connectTimeoutMs: 2_000, allowPrivateTargets: options.allowPrivateTargets },
        keys: undefined,
      },
      deliveryId,
    );
  const row = (db: Db, id: string) => db.selectFrom('webhookDeliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('behaves as documented in docs/webhooks.md', async () => {
    await withScratchDatabase(async (databaseUrl) => {
      const db = createDatabase({ connectionString: databaseUrl, max: 2 });
      try {
        // loopback is refused by default, before any connection is made
        const refused = await deliveryTo(db, '/guarded');
        expect(await attempt(db, refused, { allowPrivateTargets: false })).toMatchObject({
          outcome: 'failed',
          error: expect.stringMatching(/^refused: 127\.0\.0\.1/),
        });
        expect(receiver.received.filter((request) => request.path === '/guarded')).toHaveLength(0);
        expect(await row(db, refused)).toMatchObject({ status: 'retrying', attempts: 1, lastStatusCode: null, nextAttemptAt: expect.any(Date) });

        // a redirect is an answer, not followed
        receiver.on('/moved', () => 302);
        const moved = await deliveryTo(db, '/moved');
        expect(await attempt(db, moved, { allowPrivateTargets: true })).toMatchObject({ outcome: 'failed', error: 'HTTP 302: receiver says 302' });
        expect(receiver.received.filter((request) => request.path === '/moved')).toHaveLength(1);

        // a long answer is kept to its first 1 KiB
        receiver.on('/long', () => ({ status: 500, body: 'x'.repeat(5_000) }));
        const long = await deliveryTo(db, '/long');
        expect(await attempt(db, long, { allowPrivateTargets: true })).toMatchObject({ outcome: 'failed' });
        const stored = await row(db, long);
        expect(stored).toMatchObject({ status: 'retrying', lastStatusCode: 500 });
        expect(stored.lastResponseBody).toBe('x'.repeat(1024));

        // 2xx: delivered, signed, recorded
        const ok = await deliveryTo(db, '/ok');
        expect(await attempt(db, ok, { allowPrivateTargets: true })).toEqual({ outcome: 'delivered', status: 200 });
        expect(await row(db, ok)).toMatchObject({
          status: 'succeeded',
          lastStatusCode: 200,
          lastResponseBody: 'ok',
          nextAttemptAt: null,
          deliveredAt: expect.any(Date),
        });
        expect(receiver.received.find((request) => request.path === '/ok')?.headers['webhook-signature']).toMatch(/^v1,/);

        // a receiver that never answers fails the attempt at the deadline
        receiver.on('/silent', () => 'hang');
        const silent = await deliveryTo(db, '/silent');
        expect(await attempt(db, silent, { allowPrivateTargets: true, timeoutMs: 300 })).toMatchObject({
          outcome: 'failed',
          error: expect.stringMatching(/within 300 ms/),
        });

        // a closed port fails at once (no waiting for the answer deadline)
        const closedPort = await new Promise<number>((resolve) => {
          const server = createServer().listen(0, '127.0.0.1', () => {
            const { port } = server.address() as AddressInfo;
            server.close(() => resolve(port));
          });
        });
        await db.deleteFrom('webhookEndpoints').execute();
        await db
          .insertInto('webhookEndpoints')
          .values({ url: `http://127.0.0.1:${closedPort}/closed`, events: ['contact.created'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
          .execute();
        await recordOutboundEvent(db, 'contact.created', { userId: 'closed' });
        const closedEvent = await db.selectFrom('outboundEvents').select('id').where('dispatchedAt', 'is', null).executeTakeFirstOrThrow();
        const [closed] = await fanOutOutboundEvent(db, closedEvent.id);
        expect(await attempt(db, closed!, { allowPrivateTargets: true })).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/ECONNREFUSED/) });

        // a disabled endpoint is not attempted: the delivery waits, open, for it to be enabled again
        const skipped = await deliveryTo(db, '/disabled');
        await db.updateTable('webhookEndpoints').set({ enabled: false }).execute();
        expect(await attempt(db, skipped, { allowPrivateTargets: true })).toEqual({ outcome: 'skipped', reason: 'endpoint disabled' });
        expect(await row(db, skipped)).toMatchObject({ status: 'pending', attempts: 0, lockedUntil: null });

        // a secret sealed under a key ENCRYPTION_KEYS no longer holds: nothing is sent and no attempt
        // counted, and the row says which key to put back (the deliveries list shows it)
        const unopenable = await deliveryTo(db, '/sealed-away');
        const gone = { id: 'gone-2026', key: new Uint8Array(32).fill(5) };
        await db
          .updateTable('webhookEndpoints')
          .set({ secret: sealSecret([gone], 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'webhook endpoint secret') })
          .execute();
        await expect(attempt(db, unopenable, { allowPrivateTargets: true })).rejects.toThrow(/key "gone-2026", which ENCRYPTION_KEYS does not hold/);
        expect(receiver.received.filter((request) => request.path === '/sealed-away')).toHaveLength(0);
        expect(await row(db, unopenable)).toMatchObject({
          status: 'pending',
          attempts: 0,
          lastError: expect.stringMatching(
            /^not attempted: a webhook endpoint secret is sealed under key "gone-2026", which ENCRYPTION_KEYS does not hold; put the key back$/,
          ),
        });
      } finally {
        await db.destroy();
      }
    });
  });
});
