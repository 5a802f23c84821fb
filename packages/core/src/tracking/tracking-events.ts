import type { Db } from '../db/database';
import type { JsonObject, MachineReason } from '../db/schema';
import type { AnalyticsDestination } from './analytics';

/** A tracking event as the ingest pipeline takes it (email.opened / email.link_clicked). */
export interface TrackingEvent {
  name: 'email.opened' | 'email.link_clicked';
  userId?: string;
  email?: string;
  eventProperties: JsonObject;
  timestamp: Date;
  /** one event per click / first open: the sweep, or a DLQ retry of what it parked, never stores it twice */
  idempotencyKey: string;
  source: 'tracking';
}

/** What a recorded click says, as its event carries it. */
export interface ClickEventSource {
  clickId: string;
  linkId: string;
  originalUrl: string;
  emailSendId: string;
  templateKey: string;
  userId: string | null;
  toEmail: string;
  clickedAt: Date;
  machineReason: MachineReason | null;
}

/** `email.link_clicked` of a click: one per click, keyed by its id. */
export function clickEvent(click: ClickEventSource): TrackingEvent {
  return {
    name: 'email.link_clicked',
    ...(click.userId === null ? {} : { userId: click.userId }),
    email: click.toEmail,
    eventProperties: {
      emailSendId: click.emailSendId,
      templateKey: click.templateKey,
      linkUrl: click.originalUrl,
      linkId: click.linkId,
      machine: click.machineReason !== null,
      machineReason: click.machineReason,
    },
    timestamp: click.clickedAt,
    idempotencyKey: `email.link_clicked:${click.clickId}`,
    source: 'tracking',
  };
}

/** What the first open of its kind (a person's, a machine's) of a send says, as its event carries it. */
export interface OpenEventSource {
  emailSendId: string;
  templateKey: string;
  userId: string | null;
  toEmail: string;
  machineReason: MachineReason | null;
}

/** `email.opened` of a send's first open of its kind: one per send and kind, keyed so. */
export function openEvent(open: OpenEventSource, at: Date): TrackingEvent {
  const machine = open.machineReason !== null;
  return {
    name: 'email.opened',
    ...(open.userId === null ? {} : { userId: open.userId }),
    email: open.toEmail,
    eventProperties: { emailSendId: open.emailSendId, templateKey: open.templateKey, machine, machineReason: open.machineReason },
    timestamp: at,
    // one per send and kind: a DLQ retry or a second api instance never stores it twice
    idempotencyKey: machine ? `email.opened:${open.emailSendId}:machine` : `email.opened:${open.emailSendId}`,
    source: 'tracking',
  };
}

export interface TrackingEventPublisher {
  /** Fire-and-forget: never blocks, never throws. */
  publish(event: TrackingEvent): void;
  /**
   * Stores events through the pipeline now, past the queue, and resolves once they are stored (the
   * sweep of hits whose events a killed api lost: it moves its mark on only after this).
   */
  store(events: TrackingEvent[]): Promise<void>;
  /** Resolves when every queued event has been pushed (shutdown, tests). */
  drain(): Promise<void>;
}

export interface TrackingEventPublisherOptions {
  db: Db;
  /** the batched ingest pipeline (`ingestEvents` on the api): stores and routes every event of a batch */
  ingest(events: TrackingEvent[]): Promise<unknown>;
  analytics: AnalyticsDestination;
  logger: { warn(object: object, message: string): void };
  /** concurrent batches (default 1) */
  concurrency?: number;
  /** events per batch at most (default 500) */
  batchSize?: number;
  /** how long a batch waits for more events before it leaves (default 100 ms) */
  lingerMs?: number;
  /** queued events beyond which new ones are left to the sweep instead (default 10,000) */
  maxQueue?: number;
}

/**
 * Tracking step 4, "fire-and-forget push through the ingest pipeline and to the analytics
 * destination". The redirect and the pixel never wait for it. Events are pushed in batches
 * (`ingestEvents`): a batch leaves lingerMs after its first event, or at once when full or when
 * someone drains, and whatever queues while a batch is in the pipeline goes in the next one, so
 * a click storm costs a few statements per batch instead of two per event. Batches run with
 * bounded concurrency so a storm cannot take every database connection from the requests
 * themselves. A batch that fails, or an event that does not fit the bounded queue, is logged and
 * left to the sweep: every event here is of a hit already written, and the sweep stores the events
 * its hits lack a minute later (missing-events.ts), so a passing failure needs nobody. What the
 * sweep cannot store (`store` refused) is parked in the DLQ, once (source `event`, one entry per
 * event, payload = the ingest input), so POST /v1/admin/dlq/{id}/retry re-ingests it; its
 * idempotency key keeps a retry from storing an event twice.
 */
export function createTrackingEventPublisher(options: TrackingEventPublisherOptions): TrackingEventPublisher {
  const concurrency = options.concurrency ?? 1;
  const batchSize = options.batchSize ?? 500;
  const lingerMs = options.lingerMs ?? 100;
  const maxQueue = options.maxQueue ?? 10_000;
  const queue: TrackingEvent[] = [];
  let running = 0;
  let idle: (() => void)[] = [];

  const payload = (event: TrackingEvent): JsonObject => ({
    name: event.name,
    ...(event.userId === undefined ? {} : { userId: event.userId }),
    ...(event.email === undefined ? {} : { email: event.email }),
    eventProperties: event.eventProperties,
    timestamp: event.timestamp.toISOString(),
    idempotencyKey: event.idempotencyKey,
  });

  const park = async (events: TrackingEvent[], error: string) => {
    if (events.length === 0) return;
    await options.db
      .insertInto('dlqEntries')
      .values(events.map((event) => ({ source: 'event', sourceId: null, payload: JSON.stringify(payload(event)), error })))
      .execute();
  };
  // one line per spell of a full queue, not one per event dropped from it
  let overflowing = false;

  let timer: ReturnType<typeof setTimeout> | undefined;

  const settle = () => {
    if (running > 0 || queue.length > 0) return;
    const waiting = idle;
    idle = [];
    for (const resolve of waiting) resolve();
  };

  const pump = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    while (running < concurrency && queue.length > 0) {
      const batch = queue.splice(0, batchSize);
      running += 1;
      options
        .ingest(batch)
        .catch((error: unknown) => {
          options.logger.warn({ err: error, count: batch.length }, 'tracking: ingest pipeline push failed; the sweep stores these events from their hits');
        })
        .finally(() => {
          running -= 1;
          schedule();
          settle();
        });
    }
    settle();
  };

  // the next batch leaves lingerMs after the pipeline is free, or at once when it is full or
  // someone drains: a burst then costs one batch per linger, not one per event
  const schedule = () => {
    if (queue.length === 0 || running >= concurrency) return;
    if (queue.length >= batchSize || idle.length > 0) return pump();
    timer ??= setTimeout(pump, lingerMs);
  };

  return {
    publish(event) {
      const distinctId = event.userId ?? event.email;
      if (distinctId !== undefined) options.analytics.capture({ distinctId, event: event.name, properties: event.eventProperties });
      if (queue.length >= maxQueue) {
        if (!overflowing) options.logger.warn({ maxQueue }, 'tracking: event queue full; the sweep stores the events of the hits beyond it');
        overflowing = true;
        return;
      }
      overflowing = false;
      queue.push(event);
      schedule();
    },
    async store(events) {
      if (events.length === 0) return;
      try {
        await options.ingest(events);
      } catch (error) {
        // the last try without a person: one event the pipeline refuses must not hold back the sweep for good
        options.logger.warn({ err: error, count: events.length }, 'tracking: ingest pipeline refused recovered events; parked in the DLQ');
        await park(events, `ingest failed: ${(error as Error).message}`);
      }
    },
    drain() {
      if (running === 0 && queue.length === 0) return Promise.resolve();
      const drained = new Promise<void>((resolve) => idle.push(resolve));
      schedule();
      return drained;
    },
  };
}
