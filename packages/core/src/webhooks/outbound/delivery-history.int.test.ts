import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/config';
import { createLogger } from '../../logging/logger';
import { useScratchDatabase } from '../../../../../test/scratch-database';
import { integrationEnv } from '../../../../../test/test-env';
import { eventually } from '../../../../../test/eventually';
import { subscribeOutboxEndpoint } from '../../../../../test/webhook-endpoints';
import { webhookDeliveryDeps } from './deliver-webhook';
import { pruneDeliveryHistory } from './delivery-history';
import { startOutboundDispatcher } from './outbound-dispatcher';
import { parkWebhookDelivery, WEBHOOK_DELIVERY_DLQ_SOURCE } from './webhook-deliveries';

const DAY_MS = 86_400_000;

/**
 * docs/webhooks.md, "Delivery history": finished outbound events older than WEBHOOK_HISTORY_DAYS
 * go with their deliveries; nothing still owed to an endpoint does. In a database of this file's
 * own, so no other test's dispatcher or endpoint touches its rows.
 */
describe('the outbound delivery history ends at WEBHOOK_HISTORY_DAYS', () => {
  const scratch = useScratchDatabase();

  /** An outbound event written `daysAgo` days ago; with `delivery`, fanned out to the endpoint in that state. */
  async function event(
    endpointId: string,
    daysAgo: number,
    delivery: 'succeeded' | 'failed' | 'skipped' | 'pending' | 'retrying' | 'parked' | 'undispatched' | 'none',
  ) {
    const db = scratch.db();
    const createdAt = new Date(Date.now() - daysAgo * DAY_MS);
    const row = await db
      .insertInto('outboundEvents')
      .values({
        event: 'contact.created',
        payload: JSON.stringify({ delivery, daysAgo }),
        createdAt,
        dispatchedAt: delivery === 'undispatched' ? null : createdAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (delivery === 'undispatched' || delivery === 'none') return row.id;
    const status = delivery === 'parked' ? 'retrying' : delivery;
    const made = await db
      .insertInto('webhookDeliveries')
      .values({ endpointId, outboundEventId: row.id, eventType: 'contact.created', status, attempts: 3, createdAt })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (delivery === 'parked') await parkWebhookDelivery(db, { deliveryId: made.id, error: 'HTTP 500 for the whole retry window' });
    return row.id;
  }
  const left = async () => (await scratch.db().selectFrom('outboundEvents').select('id').execute()).map((row) => row.id);

  it('finished events past the history go with their deliveries; pending, retrying, parked, undispatched and recent ones stay', async () => {
    const db = scratch.db();
    const removeEndpoint = await subscribeOutboxEndpoint(db, ['contact.created']);
    const endpointId = (await db.selectFrom('webhookEndpoints').select('id').executeTakeFirstOrThrow()).id;
    const gone = [
      await event(endpointId, 40, 'succeeded'),
      await event(endpointId, 40, 'failed'),
      await event(endpointId, 40, 'skipped'),
      await event(endpointId, 40, 'none'),
    ];
    const kept = [
      await event(endpointId, 40, 'pending'),
      await event(endpointId, 40, 'retrying'),
      await event(endpointId, 40, 'parked'),
      await event(endpointId, 40, 'undispatched'),
      await event(endpointId, 20, 'succeeded'),
    ];

    expect(await pruneDeliveryHistory(db, new Date(Date.now() - 30 * DAY_MS))).toBe(4);
    expect((await left()).sort()).toEqual([...kept].sort());
    expect(await db.selectFrom('webhookDeliveries').select('outboundEventId').where('outboundEventId', 'in', gone).execute()).toEqual([]);
    // the parked one's dead letter still has its delivery to retry
    const [letter] = await db.selectFrom('dlqEntries').select('payload').where('source', '=', WEBHOOK_DELIVERY_DLQ_SOURCE).execute();
    expect(kept).toContain((letter!.payload as { eventId: string }).eventId);
    // a second pass finds nothing more
    expect(await pruneDeliveryHistory(db, new Date(Date.now() - 30 * DAY_MS))).toBe(0);
    await db.deleteFrom('dlqEntries').execute();
    await removeEndpoint();
  });

  it("the worker's dispatcher prunes at start with WEBHOOK_HISTORY_DAYS; 0 keeps everything", async () => {
    const db = scratch.db();
    await db.deleteFrom('outboundEvents').execute();
    const removeEndpoint = await subscribeOutboxEndpoint(db, ['contact.created']);
    const endpointId = (await db.selectFrom('webhookEndpoints').select('id').executeTakeFirstOrThrow()).id;
    const old = await event(endpointId, 3, 'succeeded');
    const recent = await event(endpointId, 0.5, 'succeeded');
    const config = loadConfig(integrationEnv());
    const start = (historyDays: number) =>
      startOutboundDispatcher({
        db,
        databaseUrl: scratch.url(),
        logger: createLogger({ level: 'error', name: 'delivery-history-test', format: 'json' }),
        delivery: webhookDeliveryDeps(db, config.webhooks, config.encryptionKeys),
        concurrency: 1,
        endpointConcurrency: 1,
        historyDays,
      });

    // kept for ever: the start prunes nothing (the sweep still runs; wait past its first pass)
    const keeping = await start(0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await keeping.close();
    expect((await left()).sort()).toEqual([old, recent].sort());

    const pruning = await start(1);
    expect(await eventually(left, (ids) => ids.length === 1)).toEqual([recent]);
    await pruning.close();
    await removeEndpoint();
  });
});
