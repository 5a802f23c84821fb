import pg from 'pg';
import type { Db } from '@waymark/core/db/database';
import type { AppLogger } from '@waymark/core/logging/logger';
import { listUndispatchedOutboundEvents } from '@waymark/core/webhooks/outbound/outbound-dispatch';
import { startOutboundEventWorkflow, type OutboundStarter } from './outbound-client';

/** The channel migrations/0015_outbound_webhooks.ts notifies on every committed outbox row. */
const CHANNEL = 'waymark_outbound_events';
/** A row older than this without a dispatch missed its notice (or its start failed). */
const SWEEP_GRACE_MS = 10_000;
const SWEEP_BATCH = 500;
const SWEEP_INTERVAL_MS = 30_000;
const RECONNECT_DELAY_MS = 5_000;

export interface OutboundDispatcherDeps {
  db: Db;
  databaseUrl: string;
  logger: AppLogger;
  starter: OutboundStarter;
}

export interface OutboundDispatcher {
  close(): Promise<void>;
}

/**
 * Starts a delivery workflow for every committed outbox row, at least once: PostgreSQL's
 * NOTIFY (sent on commit by the insert trigger) starts it at once, and a periodic sweep starts
 * whatever a notice missed (worker down, listener reconnecting, Temporal refusing a start).
 * Every worker runs one; duplicate starts are refused by the workflow id.
 */
export async function startOutboundDispatcher(deps: OutboundDispatcherDeps): Promise<OutboundDispatcher> {
  let closed = false;
  let listener: pg.Client | undefined;
  let reconnect: NodeJS.Timeout | undefined;

  const start = (outboundEventId: string) => {
    startOutboundEventWorkflow(deps.starter, outboundEventId).catch((error: unknown) => {
      deps.logger.warn({ err: error, outboundEventId }, 'outbound webhooks: could not start the delivery; the sweep retries it');
    });
  };

  const listen = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: deps.databaseUrl, application_name: 'waymark-outbound-listener' });
    client.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload !== undefined) start(message.payload);
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
      await client.query(`listen ${CHANNEL}`);
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
      for (const id of ids) await startOutboundEventWorkflow(deps.starter, id);
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

  return {
    async close() {
      closed = true;
      clearInterval(timer);
      if (reconnect !== undefined) clearTimeout(reconnect);
      await listener?.end().catch(() => undefined);
    },
  };
}
