import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAlertValue } from '../../alerts/alert-values';
import { createDatabase, type Db } from '../../db/database';
import { recordOutboundEvent } from '../../outbox/outbox';
import { withScratchDatabase } from '../../../../../test/scratch-database';
import { startWebhookReceiver, type WebhookReceiver } from '../../../../../test/webhook-receiver';
import { attemptWebhookDelivery, type WebhookDeliveryDeps } from './deliver-webhook';
import { claimDueDeliveries } from './delivery-queue';
import { fanOutOutboundEvent } from './outbound-dispatch';
import { reopenWebhookDelivery } from './webhook-deliveries';
import { updateWebhookEndpoint } from './webhook-endpoints';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const HOUR = 3_600_000;

/** The delivery queue in a scratch database (no dispatcher runs there): claims, backoff, the DLQ, auto-disable. */
describe('the outbound delivery queue', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    receiver.on('/down', () => 503);
  });
  afterAll(() => receiver?.close());

  const deps = (db: Db, overrides: Partial<WebhookDeliveryDeps> = {}): WebhookDeliveryDeps => ({
    db,
    retry: { initialIntervalMs: 30_000, maximumIntervalMs: HOUR, windowMs: 24 * HOUR },
    disableAfterMs: 72 * HOUR,
    outbound: { timeoutMs: 5_000, connectTimeoutMs: 2_000, allowPrivateTargets: true },
    keys: undefined,
    ...overrides,
  });
  const endpoint = async (db: Db, path: string) =>
    (
      await db
        .insertInto('webhookEndpoints')
        .values({ url: `${receiver.url}${path}`, events: ['contact.created'], secret: SECRET, description: path })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  /** `count` contact.created events fanned out to every enabled endpoint */
  const events = async (db: Db, count: number) => {
    for (let n = 0; n < count; n++) await recordOutboundEvent(db, 'contact.created', { n });
    const rows = await db.selectFrom('outboundEvents').select('id').where('dispatchedAt', 'is', null).execute();
    for (const row of rows) await fanOutOutboundEvent(db, row.id);
  };
  const claimedBy = async (db: Db, ids: string[]) =>
    (
      await db
        .selectFrom('webhookDeliveries')
        .select('endpointId')
        .where('id', 'in', ids.length === 0 ? [''] : ids)
        .execute()
    ).map((row) => row.endpointId);
  const count = (list: string[], id: string) => list.filter((value) => value === id).length;

  it('claims at most the per-endpoint concurrency; a failing endpoint waits for its backoff, then gets one; a disabled one none', async () => {
    await withScratchDatabase(async (url) => {
      const db = createDatabase({ connectionString: url, max: 2 });
      try {
        const live = await endpoint(db, '/live');
        const down = await endpoint(db, '/down');
        await events(db, 10);
        const lease = { endpointConcurrency: 4, leaseMs: 30_000 };

        const first = await claimDueDeliveries(db, { ...lease, limit: 100 });
        const owners = await claimedBy(db, first);
        expect([count(owners, live), count(owners, down)]).toEqual([4, 4]);
        // every slot of both endpoints is leased: nothing more until one ends
        expect(await claimDueDeliveries(db, { ...lease, limit: 100 })).toEqual([]);

        // the down endpoint answers 503: it is failing, held back until its backoff has passed
        for (const id of first) await attemptWebhookDelivery(deps(db), id);
        const downRow = await db.selectFrom('webhookEndpoints').selectAll().where('id', '=', down).executeTakeFirstOrThrow();
        expect(downRow.failingSince).toEqual(expect.any(Date));
        expect(downRow.backoffUntil!.getTime() - downRow.failingSince!.getTime()).toBeGreaterThanOrEqual(30_000);
        const second = await claimedBy(db, await claimDueDeliveries(db, { ...lease, limit: 100 }));
        expect([count(second, live), count(second, down)]).toEqual([4, 0]);

        // once the backoff has passed, one attempt at a time
        await db
          .updateTable('webhookEndpoints')
          .set({ backoffUntil: new Date(Date.now() - 1) })
          .where('id', '=', down)
          .execute();
        await db
          .updateTable('webhookDeliveries')
          .set({ nextAttemptAt: new Date(Date.now() - 1) })
          .where('endpointId', '=', down)
          .where('status', '=', 'retrying')
          .execute();
        const third = await claimedBy(db, await claimDueDeliveries(db, { ...lease, limit: 100 }));
        expect(count(third, down)).toBe(1);

        // disabled: its backlog stays open and unclaimed, but a test event to it still goes
        await db.updateTable('webhookDeliveries').set({ lockedUntil: null }).execute();
        await db.updateTable('webhookEndpoints').set({ enabled: false, backoffUntil: null }).where('id', '=', down).execute();
        const fourth = await claimedBy(db, await claimDueDeliveries(db, { ...lease, limit: 100 }));
        expect(count(fourth, down)).toBe(0);
        await db
          .insertInto('outboundEvents')
          .values({ event: 'webhook.test', endpointId: down, payload: JSON.stringify({}) })
          .execute();
        const test = await db.selectFrom('outboundEvents').select('id').where('event', '=', 'webhook.test').executeTakeFirstOrThrow();
        await fanOutOutboundEvent(db, test.id);
        const fifth = await claimDueDeliveries(db, { ...lease, limit: 100 });
        const testDelivery = await db.selectFrom('webhookDeliveries').select('id').where('outboundEventId', '=', test.id).executeTakeFirstOrThrow();
        expect(fifth).toContain(testDelivery.id);
        expect(count(await claimedBy(db, fifth), down)).toBe(1);
        const waiting = await db
          .selectFrom('webhookDeliveries')
          .select('status')
          .where('endpointId', '=', down)
          .where('eventType', '=', 'contact.created')
          .execute();
        expect(waiting.every((row) => row.status === 'pending' || row.status === 'retrying')).toBe(true);

        // re-enabling drains it: every open delivery is due now, on a fresh schedule
        await db.updateTable('webhookDeliveries').set({ lockedUntil: null }).execute();
        receiver.on('/down', () => 200);
        await updateWebhookEndpoint(db, undefined, down, { enabled: true });
        const drained = await claimedBy(db, await claimDueDeliveries(db, { ...lease, limit: 100 }));
        expect(count(drained, down)).toBe(4);
        const reset = await db
          .selectFrom('webhookDeliveries')
          .select('firstAttemptAt')
          .where('endpointId', '=', down)
          .where('status', '=', 'retrying')
          .execute();
        expect(reset.every((row) => row.firstAttemptAt === null)).toBe(true);
      } finally {
        receiver.on('/down', () => 503);
        await db.destroy();
      }
    });
  });

  it('a delivery still failing when its retry window closes goes to the DLQ; a DLQ retry opens it on a fresh schedule', async () => {
    await withScratchDatabase(async (url) => {
      const db = createDatabase({ connectionString: url, max: 2 });
      try {
        await endpoint(db, '/down');
        await events(db, 1);
        const delivery = await db.selectFrom('webhookDeliveries').select('id').executeTakeFirstOrThrow();
        // its first attempt was 24 h ago: this failure is its last
        await db
          .updateTable('webhookDeliveries')
          .set({ firstAttemptAt: new Date(Date.now() - 24 * HOUR), attempts: 20 })
          .execute();
        expect(await attemptWebhookDelivery(deps(db), delivery.id)).toMatchObject({ outcome: 'failed', parked: true, endpointDisabled: false });
        expect(await db.selectFrom('webhookDeliveries').selectAll().executeTakeFirstOrThrow()).toMatchObject({
          status: 'failed',
          attempts: 21,
          nextAttemptAt: null,
        });
        const entry = await db.selectFrom('dlqEntries').selectAll().where('source', '=', 'webhook-delivery').executeTakeFirstOrThrow();
        expect(entry).toMatchObject({ sourceId: delivery.id, retryCount: 21, error: expect.stringMatching(/HTTP 503.*retry window/) });

        await reopenWebhookDelivery(db, delivery.id);
        expect(await db.selectFrom('webhookDeliveries').selectAll().executeTakeFirstOrThrow()).toMatchObject({
          status: 'pending',
          firstAttemptAt: null,
          attempts: 21,
        });
        expect(await claimDueDeliveries(db, { limit: 10, endpointConcurrency: 4, leaseMs: 30_000 })).toEqual([delivery.id]);
      } finally {
        await db.destroy();
      }
    });
  });

  it('an endpoint whose every attempt failed for the disable window is disabled, with an audit row and the alert', async () => {
    await withScratchDatabase(async (url) => {
      const db = createDatabase({ connectionString: url, max: 2 });
      try {
        const down = await endpoint(db, '/down');
        await events(db, 2);
        const [first, second] = (await db.selectFrom('webhookDeliveries').select('id').orderBy('createdAt').execute()).map((row) => row.id);
        // 0.5 h: a failure half an hour after the first one disables it (the setting takes fractions)
        const window = deps(db, { disableAfterMs: 0.5 * HOUR });
        expect(await attemptWebhookDelivery(window, first!)).toMatchObject({ outcome: 'failed', endpointDisabled: false });
        await db
          .updateTable('webhookEndpoints')
          .set({ failingSince: sql<Date>`now() - interval '31 minutes'` })
          .where('id', '=', down)
          .execute();
        expect(await attemptWebhookDelivery(window, second!)).toMatchObject({ outcome: 'failed', endpointDisabled: true, parked: false });

        const disabled = await db.selectFrom('webhookEndpoints').selectAll().where('id', '=', down).executeTakeFirstOrThrow();
        expect(disabled).toMatchObject({ enabled: false, disabledReason: 'every delivery attempt failed for 0.5 h', disabledAt: expect.any(Date) });
        const audit = await db.selectFrom('auditLogs').selectAll().where('resourceId', '=', down).execute();
        expect(audit).toMatchObject([
          {
            actor: 'waymark',
            actorType: 'system',
            action: 'update',
            resource: 'webhook-endpoint',
            detail: { enabled: false, disabledReason: disabled.disabledReason },
          },
        ]);
        expect(await readAlertValue(db, 'webhook_endpoint_disabled', new Date(disabled.disabledAt!.getTime() + 60_000))).toEqual({ value: 1, sample: 1 });
        // its deliveries wait, open, in the table
        const open = await db.selectFrom('webhookDeliveries').select('status').where('endpointId', '=', down).execute();
        expect(open.map((row) => row.status)).toEqual(['retrying', 'retrying']);
      } finally {
        await db.destroy();
      }
    });
  });
});
