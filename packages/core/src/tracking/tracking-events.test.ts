import { describe, expect, it, vi } from 'vitest';
import type { Db } from '../db/database';
import type { AnalyticsDestination } from './analytics';
import { createTrackingEventPublisher, type TrackingEvent } from './tracking-events';

/** Just enough of Kysely for `insertInto('dlqEntries').values(rows).execute()`. */
function fakeDb() {
  const parked: unknown[] = [];
  const db = { insertInto: () => ({ values: (rows: unknown[]) => ({ execute: async () => parked.push(...rows) }) }) } as unknown as Db;
  return { db, parked };
}

const event = (n: number): TrackingEvent => ({
  name: 'email.link_clicked',
  userId: `u-${n}`,
  eventProperties: { n },
  timestamp: new Date('2026-01-01T00:00:00Z'),
  idempotencyKey: `email.link_clicked:${n}`,
  source: 'tracking',
});

describe('tracking event publisher', () => {
  const analytics: AnalyticsDestination = { capture: vi.fn(), shutdown: async () => undefined };
  const logger = { warn: vi.fn() };

  it('pushes every event once, in order, in batches of at most batchSize with bounded concurrency; captures analytics at once; drains', async () => {
    const { db, parked } = fakeDb();
    let running = 0;
    let peak = 0;
    const batches: string[][] = [];
    const publisher = createTrackingEventPublisher({
      db,
      analytics,
      logger,
      concurrency: 2,
      batchSize: 4,
      lingerMs: 0,
      ingest: async (inputs) => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        batches.push(inputs.map((input) => input.idempotencyKey));
        running -= 1;
      },
    });
    for (let n = 0; n < 10; n += 1) publisher.publish(event(n));
    expect(analytics.capture).toHaveBeenCalledTimes(10);
    await publisher.drain();
    expect(batches.map((batch) => batch.length)).toEqual([4, 4, 2]);
    expect(batches.flat()).toEqual(Array.from({ length: 10 }, (_, n) => `email.link_clicked:${n}`));
    expect(peak).toBe(2);
    expect(parked).toEqual([]);
  });

  it('a batch leaves lingerMs after its first event; events published while it is in the pipeline go together in the next one', async () => {
    const { db } = fakeDb();
    const sizes: number[] = [];
    const publisher = createTrackingEventPublisher({
      db,
      analytics,
      logger,
      lingerMs: 10,
      ingest: async (inputs) => {
        sizes.push(inputs.length);
        await new Promise((resolve) => setTimeout(resolve, 40));
      },
    });
    publisher.publish(event(0));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(sizes).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 15));
    expect(sizes).toEqual([1]);
    for (let n = 1; n <= 6; n += 1) publisher.publish(event(n));
    await publisher.drain();
    expect(sizes).toEqual([1, 6]);
  });

  it('drain sends what is queued at once instead of waiting out the linger', async () => {
    const { db } = fakeDb();
    const sizes: number[] = [];
    const publisher = createTrackingEventPublisher({ db, analytics, logger, lingerMs: 60_000, ingest: async (inputs) => void sizes.push(inputs.length) });
    for (let n = 0; n < 3; n += 1) publisher.publish(event(n));
    const started = Date.now();
    await publisher.drain();
    expect(sizes).toEqual([3]);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('leaves a failed batch and overflow to the sweep of missing events: nothing parked, each told in the log', async () => {
    const { db, parked } = fakeDb();
    const warn = vi.fn();
    const publisher = createTrackingEventPublisher({
      db,
      analytics,
      logger: { warn },
      batchSize: 2,
      // [0, 1] is full and leaves at once; [2, 3] waits behind it; 4 and 5 do not fit
      maxQueue: 2,
      ingest: async (inputs) => {
        if (inputs.some((input) => input.idempotencyKey.endsWith(':0'))) throw new Error('database down');
      },
    });
    for (let n = 0; n < 6; n += 1) publisher.publish(event(n));
    await publisher.drain();
    // every event here is of a hit already written: the sweep stores what its hits lack, with nobody asked
    expect(parked).toEqual([]);
    const messages = warn.mock.calls.map(([, message]) => message as string);
    expect(messages).toEqual([
      'tracking: event queue full; the sweep stores the events of the hits beyond it',
      'tracking: ingest pipeline push failed; the sweep stores these events from their hits',
    ]);
  });

  it("parks in the DLQ, as re-ingestable events, what the sweep's store is refused: the last try without a person", async () => {
    const { db, parked } = fakeDb();
    const publisher = createTrackingEventPublisher({
      db,
      analytics,
      logger,
      ingest: async () => {
        throw new Error('database down');
      },
    });
    await publisher.store([event(0), event(1)]);
    expect(parked).toHaveLength(2);
    expect(parked).toContainEqual(expect.objectContaining({ source: 'event', error: 'ingest failed: database down' }));
    const payloads = parked.map((row) => JSON.parse((row as { payload: string }).payload) as { idempotencyKey: string });
    expect(payloads.map((payload) => payload.idempotencyKey).sort()).toEqual(['email.link_clicked:0', 'email.link_clicked:1']);
    expect(payloads[0]).toMatchObject({
      name: 'email.link_clicked',
      userId: expect.any(String),
      idempotencyKey: expect.any(String),
      eventProperties: expect.any(Object),
    });
  });
});
