import pg from 'pg';
import type { Db } from '../../db/database';
import type { AppLogger } from '../../logging/logger';
import { attemptWebhookDelivery, type WebhookDeliveryDeps } from './deliver-webhook';
import { startDeliveryPool } from './delivery-pool';
import { claimDueDeliveries, DELIVERY_QUEUE_CHANNEL } from './delivery-queue';
import { pruneDeliveryHistory } from './delivery-history';
import { fanOutOutboundEvents, listUndispatchedOutboundEvents } from './outbound-dispatch';

/** The channel migrations/0015_outbound_webhooks.ts notifies on every committed outbox row. */
const OUTBOX_CHANNEL = 'waymark_outbound_events';
/** A row older than this without a dispatch missed its notice (or its fan-out failed). */
const SWEEP_GRACE_MS = 10_000;
const SWEEP_BATCH = 500;
const SWEEP_INTERVAL_MS = 30_000;
const RECONNECT_DELAY_MS = 5_000;
/** fan-out transactions at once: a burst of notices (an import) queues here, not in the connection pool */
const FAN_OUT_CONCURRENCY = 2;
/** outbox rows per fan-out transaction */
const FAN_OUT_BATCH = 200;
/** retries coming due and lapsed leases are found within this */
const POLL_MS = 1_000;
/** a claim outlives the longest attempt (connect + answer deadline) by this much */
const LEASE_MARGIN_MS = 20_000;
/** how often the delivery history past WEBHOOK_HISTORY_DAYS is pruned (and once at start) */
const PRUNE_INTERVAL_MS = 3_600_000;
const DAY_MS = 86_400_000;

export interface OutboundDispatcherDeps {
  db: Db;
  databaseUrl: string;
  logger: AppLogger;
  /** how one attempt is made and recorded (signing, deadlines, retry schedule, endpoint health) */
  delivery: WebhookDeliveryDeps;
  /** WEBHOOK_DELIVERY_CONCURRENCY: this process's delivery slots */
  concurrency: number;
  /** WEBHOOK_ENDPOINT_CONCURRENCY: attempts in flight to one healthy endpoint, across workers */
  endpointConcurrency: number;
  /** WEBHOOK_HISTORY_DAYS: finished events older than this go with their deliveries; 0 keeps them */
  historyDays: number;
}

export interface OutboundDispatcher {
  close(): Promise<void>;
}

/**
 * Outbound webhooks in a worker process, apart from its Temporal work (docs/webhooks.md,
 * "Isolation"): every committed outbox row is fanned out into the delivery queue at least once
 * (PostgreSQL's NOTIFY, sent on commit by the insert trigger, at once; a periodic sweep for
 * whatever a notice missed), and a pool of delivery slots works the queue. Every worker runs
 * one; the fan-out is idempotent and claims are leased, so several share the work safely. It also
 * ends the delivery history at WEBHOOK_HISTORY_DAYS, hourly (pruneDeliveryHistory skips the rows
 * another worker is deleting).
 */
export async function startOutboundDispatcher(deps: OutboundDispatcherDeps): Promise<OutboundDispatcher> {
  let closed = false;
  let listener: pg.Client | undefined;
  let reconnect: NodeJS.Timeout | undefined;

  const leaseMs = deps.delivery.outbound.timeoutMs + (deps.delivery.outbound.connectTimeoutMs ?? 0) + LEASE_MARGIN_MS;
  const pool = startDeliveryPool({
    claim: (limit) => claimDueDeliveries(deps.db, { limit, endpointConcurrency: deps.endpointConcurrency, leaseMs }),
    deliver: async (deliveryId) => {
      // logged inside the attempt's span, so the line carries the trace it continues
      await attemptWebhookDelivery(deps.delivery, deliveryId, (result) => {
        if (result.outcome === 'failed' && result.endpointDisabled) {
          deps.logger.error(
            { endpointId: result.endpointId, error: result.error },
            'outbound webhooks: endpoint disabled after every attempt failed for the disable window; its backlog waits until it is enabled again',
          );
        }
      });
    },
    logger: deps.logger,
    concurrency: deps.concurrency,
    pollMs: POLL_MS,
  });

  const pending = new Set<string>();
  let fanningOut = 0;
  const drain = () => {
    while (fanningOut < FAN_OUT_CONCURRENCY && pending.size > 0 && !closed) {
      const batch = [...pending].slice(0, FAN_OUT_BATCH);
      for (const id of batch) pending.delete(id);
      fanningOut += 1;
      fanOutOutboundEvents(deps.db, batch)
        .then(() => pool.wake())
        .catch((error: unknown) => {
          deps.logger.warn({ err: error, outboundEventIds: batch.length }, 'outbound webhooks: could not enqueue deliveries; the sweep retries them');
        })
        .finally(() => {
          fanningOut -= 1;
          drain();
        });
    }
  };
  const enqueue = (outboundEventId: string) => {
    pending.add(outboundEventId);
    drain();
  };

  const listen = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: deps.databaseUrl, application_name: 'waymark-outbound-listener' });
    client.on('notification', (message) => {
      if (message.channel === OUTBOX_CHANNEL && message.payload !== undefined) enqueue(message.payload);
      else if (message.channel === DELIVERY_QUEUE_CHANNEL) pool.wake();
    });
    client.on('error', (error) => {
      deps.logger.warn({ err: error }, 'outbound webhooks: listener connection lost; reconnecting (the sweep covers the gap)');
      scheduleReconnect();
    });
    // a connection the server closed without an error (e.g. a restart) must come back too
    client.on('end', () => {
      if (listener === client) scheduleReconnect();
    });
    try {
      await client.connect();
      await client.query(`listen ${OUTBOX_CHANNEL}`);
      await client.query(`listen ${DELIVERY_QUEUE_CHANNEL}`);
      listener = client;
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
  };

  function scheduleReconnect(): void {
    const previous = listener;
    listener = undefined;
    void previous?.end().catch(() => undefined);
    if (closed || reconnect !== undefined) return;
    reconnect = setTimeout(() => {
      reconnect = undefined;
      listen().catch((error: unknown) => {
        deps.logger.warn({ err: error }, 'outbound webhooks: listener could not reconnect');
        scheduleReconnect();
      });
    }, RECONNECT_DELAY_MS);
  }

  let sweeping = false;
  const sweep = async (graceMs: number) => {
    if (sweeping || closed) return;
    sweeping = true;
    try {
      const ids = await listUndispatchedOutboundEvents(deps.db, { olderThan: new Date(Date.now() - graceMs), limit: SWEEP_BATCH });
      for (const id of ids) enqueue(id);
    } catch (error) {
      deps.logger.warn({ err: error }, 'outbound webhooks: sweep failed; the next one retries');
    } finally {
      sweeping = false;
    }
  };

  await listen().catch((error: unknown) => {
    deps.logger.warn({ err: error }, 'outbound webhooks: listener could not connect');
    scheduleReconnect();
  });
  // at start every undispatched row is due: whatever was written while no listener ran
  void sweep(0);
  const timer = setInterval(() => void sweep(SWEEP_GRACE_MS), SWEEP_INTERVAL_MS);

  let pruning: Promise<void> | undefined;
  const prune = () => {
    if (deps.historyDays === 0 || pruning !== undefined || closed) return;
    pruning = pruneDeliveryHistory(deps.db, new Date(Date.now() - deps.historyDays * DAY_MS))
      .then((deleted) => {
        if (deleted > 0)
          deps.logger.info({ deleted, historyDays: deps.historyDays }, 'outbound webhooks: delivery history older than WEBHOOK_HISTORY_DAYS deleted');
      })
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'outbound webhooks: could not prune the delivery history; the next hour retries'))
      .finally(() => (pruning = undefined));
  };
  prune();
  const pruneTimer = setInterval(prune, PRUNE_INTERVAL_MS);
  pruneTimer.unref();

  return {
    async close() {
      closed = true;
      clearInterval(timer);
      clearInterval(pruneTimer);
      await pruning;
      if (reconnect !== undefined) clearTimeout(reconnect);
      await listener?.end().catch(() => undefined);
      await pool.close();
    },
  };
}
