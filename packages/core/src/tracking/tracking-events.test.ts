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

  it('pushes every event with bounded concurrency, captures analytics at once, and drains', async () => {
    const { db, parked } = fakeDb();
    let running = 0;
    let peak = 0;
    const pushed: string[] = [];
    const publisher = createTrackingEventPublisher({
      db,
      analytics,
      logger,
      concurrency: 2,
      ingest: async (input) => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        pushed.push(input.idempotencyKey);
        running -= 1;
      },
    });
    for (let n = 0; n < 10; n += 1) publisher.publish(event(n));
    expect(analytics.capture).toHaveBeenCalledTimes(10);
    await publisher.drain();
    expect(pushed).toHaveLength(10);
    expect(peak).toBe(2);
    expect(parked).toEqual([]);
  });

  it('parks failed pushes and overflow in the DLQ as re-ingestable events', async () => {
    const { db, parked } = fakeDb();
    const publisher = createTrackingEventPublisher({
      db,
      analytics,
      logger,
      concurrency: 1,
      maxQueue: 2,
      ingest: async (input) => {
        if (input.idempotencyKey.endsWith(':0')) throw new Error('database down');
      },
    });
    for (let n = 0; n < 4; n += 1) publisher.publish(event(n));
    await publisher.drain();
    await new Promise((resolve) => setImmediate(resolve));
    expect(parked).toHaveLength(3);
    expect(parked).toContainEqual(expect.objectContaining({ source: 'event', error: 'ingest failed: database down' }));
    expect(parked.filter((row) => (row as { error: string }).error === 'tracking event queue full')).toHaveLength(2);
    expect(JSON.parse((parked[0] as { payload: string }).payload)).toMatchObject({ name: 'email.link_clicked', userId: expect.any(String), idempotencyKey: expect.any(String), eventProperties: expect.any(Object) });
  });
});
