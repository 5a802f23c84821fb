import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { withScratchDatabase } from '../../../../test/scratch-database';
import { createDatabase, type Db } from '../db/database';
import { AppError, unavailable } from '../errors/app-error';
import type { JourneyRunRequest } from './orchestrator';
import { pendingStartStats, recordPendingStart, relayPendingStarts } from './pending-starts';

const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

function request(label: string): JourneyRunRequest {
  return {
    journeyId: 'welcome-series',
    userId: `${label}-${randomUUID().slice(0, 8)}`,
    userEmail: `${label}@example.com`,
    properties: { plan: 'pro' },
    trigger: { event: 'user.signed_up', eventId: randomUUID(), occurredAt: new Date().toISOString() },
  };
}

/** The orchestrator port as the engine answers it; records every start it is asked for. */
function engine(answer: (request: JourneyRunRequest) => Promise<void>) {
  const calls: JourneyRunRequest[] = [];
  return {
    calls,
    async startJourney(request: JourneyRunRequest) {
      calls.push(request);
      await answer(request);
      return { workflowId: `journey:${request.journeyId}:${request.userId}:${request.trigger.eventId}`, runId: randomUUID() };
    },
  };
}

/** A scratch database of the test's own: a pass claims every due row of the table. */
function withDb(use: (db: Db) => Promise<void>): Promise<void> {
  return withScratchDatabase(async (url) => {
    const db = createDatabase({ connectionString: url, max: 8 });
    try {
      await use(db);
    } finally {
      await db.destroy();
    }
  });
}

const dlqJourneyStarts = (db: Db) =>
  db
    .selectFrom('dlqEntries')
    .select(['sourceId', 'retryCount', 'error', sql<string>`payload ->> 'kind'`.as('kind')])
    .where('source', '=', 'journey')
    .execute();

/**
 * The relay's pass against a real PostgreSQL (a scratch database of this file's own: a pass claims
 * every due row of the table) with the engine behind core's orchestrator port.
 */
describe('pending journey starts: the relay pass', () => {
  it('starts kept rows with the request as it was and removes them; a second failure of one start keeps one row', async () => {
    await withDb(async (db) => {
      const kept = [request('a'), request('b')];
      for (const start of kept) await recordPendingStart(db, start, '14 UNAVAILABLE: connection refused');
      await recordPendingStart(db, kept[0]!, 'the same start failing again');
      expect((await pendingStartStats(db)).pending).toBe(2);

      const up = engine(async () => undefined);
      const pass = await relayPendingStarts({ db, orchestrator: up, logger, retryHours: 24 });
      expect(pass).toEqual({ claimed: 2, started: 2, parked: 0, unavailable: false });
      expect(up.calls.sort((x, y) => x.userId.localeCompare(y.userId))).toEqual(kept);
      expect(await pendingStartStats(db)).toEqual({ pending: 0, oldestAt: null });
      expect(await dlqJourneyStarts(db)).toEqual([]);
    });
  }, 60_000);

  it('engine still down: the first failure ends the pass, counts an attempt and keeps every row due', async () => {
    await withDb(async (db) => {
      for (let i = 0; i < 5; i += 1) await recordPendingStart(db, request(`down${i}`), 'down');
      const down = engine(async () => {
        throw unavailable('Temporal unreachable or timed out: 4 DEADLINE_EXCEEDED');
      });
      const pass = await relayPendingStarts({ db, orchestrator: down, logger, retryHours: 24 }, { concurrency: 1 });
      expect(pass).toEqual({ claimed: 5, started: 0, parked: 0, unavailable: true });
      expect(down.calls).toHaveLength(1);
      const rows = await db
        .selectFrom('journeyPendingStarts')
        .select(['attempts', 'lastError', sql<boolean>`next_attempt_at <= now()`.as('due')])
        .execute();
      expect(rows.map((row) => row.attempts).sort()).toEqual([1, 1, 1, 1, 2]);
      expect(rows.filter((row) => !row.due)).toEqual([]);
      expect(rows.filter((row) => row.attempts === 2).map((row) => row.lastError)).toEqual(['Temporal unreachable or timed out: 4 DEADLINE_EXCEEDED']);
      expect(await dlqJourneyStarts(db)).toEqual([]);
    });
  }, 60_000);

  it('parks in the DLQ a start refused by the engine at once, and one kept longer than JOURNEY_START_RETRY_HOURS without trying it', async () => {
    await withDb(async (db) => {
      const refused = request('refused');
      const expired = request('expired');
      await recordPendingStart(db, refused, 'down');
      await recordPendingStart(db, expired, '14 UNAVAILABLE: connection refused');
      await db
        .updateTable('journeyPendingStarts')
        .set({ createdAt: sql`now() - interval '25 hours'`, attempts: 40 })
        .where('userId', '=', expired.userId)
        .execute();
      const refusing = engine(async () => {
        throw new AppError('validation', '3 INVALID_ARGUMENT: search attribute not registered');
      });
      const pass = await relayPendingStarts({ db, orchestrator: refusing, logger, retryHours: 24 });
      expect(pass).toEqual({ claimed: 2, started: 0, parked: 2, unavailable: false });
      expect(refusing.calls.map((call) => call.userId)).toEqual([refused.userId]);
      const parked = await dlqJourneyStarts(db);
      expect(parked.sort((x, y) => (x.retryCount ?? 0) - (y.retryCount ?? 0))).toEqual([
        { sourceId: refused.trigger.eventId, retryCount: 1, error: '3 INVALID_ARGUMENT: search attribute not registered', kind: 'journey-start' },
        {
          sourceId: expired.trigger.eventId,
          retryCount: 40,
          error: 'not started within JOURNEY_START_RETRY_HOURS (24 h, 40 attempts): 14 UNAVAILABLE: connection refused',
          kind: 'journey-start',
        },
      ]);
      expect((await pendingStartStats(db)).pending).toBe(0);
    });
  }, 60_000);

  it('two relays at once split the rows: every start is asked for exactly once', async () => {
    await withDb(async (db) => {
      for (let i = 0; i < 40; i += 1) await recordPendingStart(db, request(`pair${i}`), 'down');
      // a slow engine keeps both passes' claims open at the same time
      const slow = engine(() => new Promise((resolve) => setTimeout(resolve, 20)));
      const [first, second] = await Promise.all([
        relayPendingStarts({ db, orchestrator: slow, logger, retryHours: 24 }, { limit: 25 }),
        relayPendingStarts({ db, orchestrator: slow, logger, retryHours: 24 }, { limit: 25 }),
      ]);
      expect(first.started + second.started).toBe(40);
      const third = await relayPendingStarts({ db, orchestrator: slow, logger, retryHours: 24 }, { limit: 25 });
      expect(third.claimed).toBe(0);
      expect(slow.calls).toHaveLength(40);
      expect(new Set(slow.calls.map((call) => call.trigger.eventId)).size).toBe(40);
    });
  }, 60_000);
});
