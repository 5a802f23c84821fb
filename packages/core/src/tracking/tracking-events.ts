import type { Db } from '../db/database';
import type { JsonObject } from '../db/schema';
import type { AnalyticsDestination } from './analytics';

/** A tracking event as the ingest pipeline takes it (SPEC §6 email.opened / email.link_clicked). */
export interface TrackingEvent {
  name: 'email.opened' | 'email.link_clicked';
  userId?: string;
  email?: string;
  eventProperties: JsonObject;
  timestamp: Date;
  /** one event per click / first open: a DLQ retry of a parked push never stores it twice */
  idempotencyKey: string;
  source: 'tracking';
}

export interface TrackingEventPublisher {
  /** Fire-and-forget: never blocks, never throws. */
  publish(event: TrackingEvent): void;
  /** Resolves when every queued event has been pushed (shutdown, tests). */
  drain(): Promise<void>;
}

export interface TrackingEventPublisherOptions {
  db: Db;
  /** the ingest pipeline (deps.ingest on the api) */
  ingest(event: TrackingEvent): Promise<unknown>;
  analytics: AnalyticsDestination;
  logger: { warn(object: object, message: string): void };
  /** concurrent pipeline pushes (default 2) */
  concurrency?: number;
  /** queued events beyond which new ones are parked in the DLQ instead (default 10,000) */
  maxQueue?: number;
}

/**
 * SPEC §4 step 4, "fire-and-forget push through the ingest pipeline and to the analytics
 * destination". The redirect and the pixel never wait for it. Pushes run with bounded
 * concurrency so a click storm cannot take every database connection from the requests
 * themselves; a push that fails, or that does not fit the bounded queue, is parked in the DLQ
 * (source `event`, payload = the ingest input) so POST /v1/admin/dlq/{id}/retry re-ingests it.
 */
export function createTrackingEventPublisher(options: TrackingEventPublisherOptions): TrackingEventPublisher {
  const concurrency = options.concurrency ?? 2;
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

  const park = (events: TrackingEvent[], error: string) => {
    if (events.length === 0) return;
    options.db
      .insertInto('dlqEntries')
      .values(events.map((event) => ({ source: 'event', sourceId: null, payload: JSON.stringify(payload(event)), error })))
      .execute()
      .catch((dlqError: unknown) => options.logger.warn({ err: dlqError, count: events.length }, 'tracking: could not park events in the DLQ; they are lost'));
  };

  const pump = () => {
    while (running < concurrency && queue.length > 0) {
      const event = queue.shift()!;
      running += 1;
      options
        .ingest(event)
        .catch((error: unknown) => {
          options.logger.warn({ err: error, event: event.name }, 'tracking: ingest pipeline push failed; parked in the DLQ');
          park([event], `ingest failed: ${(error as Error).message}`);
        })
        .finally(() => {
          running -= 1;
          pump();
        });
    }
    if (running === 0 && queue.length === 0) {
      const waiting = idle;
      idle = [];
      for (const resolve of waiting) resolve();
    }
  };

  return {
    publish(event) {
      const distinctId = event.userId ?? event.email;
      if (distinctId !== undefined) options.analytics.capture({ distinctId, event: event.name, properties: event.eventProperties });
      if (queue.length >= maxQueue) {
        park([event], 'tracking event queue full');
        return;
      }
      queue.push(event);
      setImmediate(pump);
    },
    drain() {
      if (running === 0 && queue.length === 0) return Promise.resolve();
      return new Promise((resolve) => idle.push(resolve));
    },
  };
}
