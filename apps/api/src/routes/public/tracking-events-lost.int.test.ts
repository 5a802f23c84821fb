import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { createPreparedStatementPool } from '@waymark/core/db/prepared-statements';
import { createTrackingRecorder } from '@waymark/core/tracking/tracking-recorder';
import type { TrackingEventPublisher } from '@waymark/core/tracking/tracking-events';
import { openScratchDatabase, type ScratchDatabase } from '../../../../../test/scratch-database';
import { startTestApi, type TestApi } from '../../../../../test/test-api';
import { seedTrackedSends } from '../../../../../test/tracked-sends';

const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';
const quiet = { warn: () => undefined };

/**
 * An api queues each hit's `email.link_clicked` / `email.opened` in memory after the hit is
 * written (docs/email.md, "Tracking"). One killed outright loses that queue; the apis' sweep
 * stores the missing events from the hits, once, and leaves out the hits of a person whose
 * contact is gone. A scratch database, so that the sweep's mark and the events are this file's.
 */
describe('tracking events a killed api lost', () => {
  let scratch: ScratchDatabase;
  let db: Db;
  let api: TestApi;
  // the surviving api's clock, moved past the sweep's grace once the hits are written
  let ahead = 0;

  beforeAll(async () => {
    scratch = await openScratchDatabase();
    db = createDatabase({ connectionString: scratch.url, max: 2 });
    api = await startTestApi({ DATABASE_URL: scratch.url }, { now: () => Date.now() + ahead });
  });
  afterAll(async () => {
    await api?.close();
    await db?.destroy();
    await scratch?.release();
  });

  /** A sent email with one tracked link, to `userId` (who has a contact only when `withContact`). */
  async function sentEmail(userId: string, withContact: boolean) {
    const to = `${userId}@lost-events.test`;
    if (withContact) await db.insertInto('contacts').values({ externalId: userId, email: to }).execute();
    // sent an hour ago: its clicks are past the machine-click window, so none waits for a verdict
    const [send] = await seedTrackedSends(db, [{ toEmail: to, userId, sentAt: new Date(Date.now() - 3_600_000) }], 'https://app.example.com/pricing');
    return send!;
  }

  const eventsKeyed = (keys: string[]) =>
    db.selectFrom('events').select(['idempotencyKey', 'event', 'userId', 'properties']).where('idempotencyKey', 'in', keys).orderBy('idempotencyKey').execute();

  it('stores each lost click and first open once, and none of a person erased since', async () => {
    const kept = await sentEmail(`kept-${randomUUID()}`, true);
    const erasedUser = `erased-${randomUUID()}`;
    const erased = await sentEmail(erasedUser, false);

    // the killed api: its recorder wrote the hits, and its queue of events died with it
    const lostQueue: TrackingEventPublisher = { publish: () => undefined, store: async () => undefined, drain: async () => undefined };
    const statements = createPreparedStatementPool({ connectionString: scratch.url });
    const killed = createTrackingRecorder({ statements, events: lostQueue, machineClickWindowMs: 0, logger: quiet });
    const person = { method: 'GET', userAgent: BROWSER, clientAddress: '203.0.113.9', ipAddress: '203.0.113.9' };
    const within = Promise.resolve(true);
    expect(await killed.followLink(kept.linkId, person, within)).toBe('https://app.example.com/pricing');
    await killed.followLink(kept.linkId, { ...person, method: 'HEAD' }, within);
    await killed.recordOpen(kept.sendId, person);
    await killed.recordOpen(kept.sendId, person);
    await killed.recordOpen(kept.sendId, { ...person, userAgent: 'Barracuda Sentinel (EE)' });
    await killed.followLink(erased.linkId, person, within);
    await killed.recordOpen(erased.sendId, person);
    await killed.close();
    await statements.close();

    const clicks = await db.selectFrom('linkClicks').select(['id', 'trackedLinkId', 'machineReason']).orderBy('id').execute();
    expect(clicks).toHaveLength(3);
    const [personClick, headClick] = clicks.filter((click) => click.trackedLinkId === kept.linkId);
    const erasedClick = clicks.find((click) => click.trackedLinkId === erased.linkId)!;
    expect(headClick!.machineReason).toBe('head_request');
    const keys = [
      `email.link_clicked:${personClick!.id}`,
      `email.link_clicked:${headClick!.id}`,
      `email.opened:${kept.sendId}`,
      `email.opened:${kept.sendId}:machine`,
    ];
    const erasedKeys = [`email.link_clicked:${erasedClick.id}`, `email.opened:${erased.sendId}`];
    expect(await eventsKeyed([...keys, ...erasedKeys])).toEqual([]);

    // within the grace a hit may still be in a live queue: nothing is stored yet
    await api.deps.tracking.sweep();
    expect(await eventsKeyed(keys)).toEqual([]);

    ahead = 120_000;
    await api.deps.tracking.sweep();
    const stored = await eventsKeyed(keys);
    expect(stored.map((event) => event.idempotencyKey)).toEqual([...keys].sort());
    const byKey = new Map(stored.map((event) => [event.idempotencyKey, event]));
    expect(byKey.get(keys[0]!)).toMatchObject({ event: 'email.link_clicked', properties: { linkId: kept.linkId, machine: false, machineReason: null } });
    expect(byKey.get(keys[1]!)).toMatchObject({ event: 'email.link_clicked', properties: { machine: true, machineReason: 'head_request' } });
    expect(byKey.get(keys[2]!)).toMatchObject({ event: 'email.opened', properties: { emailSendId: kept.sendId, machine: false } });
    expect(byKey.get(keys[3]!)).toMatchObject({ event: 'email.opened', properties: { machine: true, machineReason: 'scanner_user_agent' } });

    // storing an event upserts its contact: the erased person's hits stay without events, and
    // the person stays gone
    expect(await eventsKeyed(erasedKeys)).toEqual([]);
    expect(await db.selectFrom('contacts').select('id').where('externalId', '=', erasedUser).execute()).toEqual([]);

    // the mark has moved on: another sweep stores nothing twice
    await api.deps.tracking.sweep();
    expect(await eventsKeyed(keys)).toHaveLength(4);
  });
});
