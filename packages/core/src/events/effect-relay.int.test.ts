import { randomUUID } from 'node:crypto';
import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { withScratchDatabase } from '../../../../test/scratch-database';
import { createDatabase, type Db } from '../db/database';
import type { EventEffectKind } from '../db/schema';
import { AppError, unavailable } from '../errors/app-error';
import type { JourneyEventSignal, JourneyRunRequest } from '../journeys/orchestrator';
import { currentTraceparent } from '../logging/trace-context';
import { relayEventEffects } from './effect-relay';
import { eventEffectStats, parkStart } from './event-effects';

const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Stores an event and keeps one effect of it, due now, as an api that died after the commit would leave it. */
async function keep(db: Db, label: string, kind: EventEffectKind = 'start'): Promise<{ eventId: string; userId: string; request: JourneyRunRequest }> {
  const eventId = randomUUID();
  const userId = `${label}-${randomUUID().slice(0, 8)}`;
  const occurredAt = new Date();
  await db
    .insertInto('events')
    .values({
      id: eventId,
      userId,
      userEmail: `${label}@example.com`,
      event: 'user.signed_up',
      properties: JSON.stringify({ plan: 'pro', nested: { no: 1 } }),
      occurredAt,
    })
    .execute();
  await db
    .insertInto('eventEffects')
    .values({
      eventId,
      seq: 1,
      kind,
      userId,
      journeyId: 'welcome-series',
      workflowId: kind === 'start' ? null : `journey:welcome-series:${userId}:x`,
      nextAttemptAt: sql`now()`,
    })
    .execute();
  return {
    eventId,
    userId,
    request: {
      journeyId: 'welcome-series',
      userId,
      userEmail: `${label}@example.com`,
      properties: { plan: 'pro' },
      trigger: { event: 'user.signed_up', eventId, occurredAt: occurredAt.toISOString() },
    },
  };
}

/** The orchestrator port as the engine answers it; records every call it is asked for. */
function engine(answer: (call: string) => Promise<void>) {
  const calls: JourneyRunRequest[] = [];
  const signals: { workflowId: string; event: JourneyEventSignal }[] = [];
  const cancels: string[] = [];
  return {
    calls,
    signals,
    cancels,
    async startJourney(request: JourneyRunRequest) {
      calls.push(request);
      await answer('start');
      return { workflowId: `journey:${request.journeyId}:${request.userId}:${request.trigger.eventId}`, runId: randomUUID() };
    },
    async signalEvent(workflowId: string, event: JourneyEventSignal) {
      signals.push({ workflowId, event });
      await answer('signal');
    },
    async cancelRun(workflowId: string) {
      cancels.push(workflowId);
      await answer('exit');
      return true;
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
describe('kept journey effects: the relay pass', () => {
  it('carries out kept starts, signals and exits from their events and removes them', async () => {
    await withDb(async (db) => {
      const starts = [await keep(db, 'a'), await keep(db, 'b')];
      const signal = await keep(db, 'c', 'signal');
      const exit = await keep(db, 'd', 'exit');
      expect(await eventEffectStats(db)).toMatchObject({ pending: 4, starts: { pending: 2 } });

      const up = engine(async () => undefined);
      const pass = await relayEventEffects({ db, orchestrator: up, logger, retryHours: 24 });
      expect(pass).toEqual({ claimed: 4, done: 4, parked: 0, unavailable: false });
      expect(up.calls.sort((x, y) => x.userId.localeCompare(y.userId))).toEqual(starts.map((start) => start.request));
      // the signal carries the event's id: the run ignores one it has already received
      expect(up.signals).toEqual([
        {
          workflowId: `journey:welcome-series:${signal.userId}:x`,
          event: { eventId: signal.eventId, name: 'user.signed_up', occurredAt: signal.request.trigger.occurredAt, properties: { plan: 'pro' } },
        },
      ]);
      expect(up.cancels).toEqual([`journey:welcome-series:${exit.userId}:x`]);
      expect(await eventEffectStats(db)).toEqual({ pending: 0, oldestAt: null, starts: { pending: 0, oldestAt: null } });
      expect(await dlqJourneyStarts(db)).toEqual([]);
    });
  }, 60_000);

  it('engine still down: the first failure ends the pass, counts an attempt and keeps every row due', async () => {
    await withDb(async (db) => {
      for (let i = 0; i < 5; i += 1) await keep(db, `down${i}`, i === 2 ? 'signal' : 'start');
      const down = engine(async () => {
        throw unavailable('Temporal unreachable or timed out: 4 DEADLINE_EXCEEDED');
      });
      const pass = await relayEventEffects({ db, orchestrator: down, logger, retryHours: 24 }, { concurrency: 1 });
      expect(pass).toEqual({ claimed: 5, done: 0, parked: 0, unavailable: true });
      expect(down.calls.length + down.signals.length).toBe(1);
      const rows = await db
        .selectFrom('eventEffects')
        .select(['attempts', 'lastError', sql<boolean>`next_attempt_at <= now()`.as('due')])
        .execute();
      expect(rows.map((row) => row.attempts).sort()).toEqual([0, 0, 0, 0, 1]);
      expect(rows.filter((row) => !row.due)).toEqual([]);
      expect(rows.filter((row) => row.attempts === 1).map((row) => row.lastError)).toEqual(['Temporal unreachable or timed out: 4 DEADLINE_EXCEEDED']);
      expect(await dlqJourneyStarts(db)).toEqual([]);
    });
  }, 60_000);

  it('a signal refused for another reason is tried again later, not dropped', async () => {
    await withDb(async (db) => {
      await keep(db, 'odd', 'signal');
      const refusing = engine(async () => {
        throw new Error('3 INVALID_ARGUMENT: something odd');
      });
      const pass = await relayEventEffects({ db, orchestrator: refusing, logger, retryHours: 24 });
      expect(pass).toEqual({ claimed: 1, done: 0, parked: 0, unavailable: false });
      const rows = await db
        .selectFrom('eventEffects')
        .select(['attempts', 'lastError', sql<boolean>`next_attempt_at > now()`.as('later')])
        .execute();
      expect(rows).toEqual([{ attempts: 1, lastError: '3 INVALID_ARGUMENT: something odd', later: true }]);
    });
  }, 60_000);

  it('parks in the DLQ a start refused by the engine at once, and one kept longer than JOURNEY_START_RETRY_HOURS without trying it', async () => {
    await withDb(async (db) => {
      const refused = await keep(db, 'refused');
      const expired = await keep(db, 'expired');
      await db
        .updateTable('eventEffects')
        .set({ createdAt: sql`now() - interval '25 hours'`, attempts: 40, lastError: '14 UNAVAILABLE: connection refused' })
        .where('userId', '=', expired.userId)
        .execute();
      const refusing = engine(async () => {
        throw new AppError('validation', '3 INVALID_ARGUMENT: search attribute not registered');
      });
      const pass = await relayEventEffects({ db, orchestrator: refusing, logger, retryHours: 24 });
      expect(pass).toEqual({ claimed: 2, done: 0, parked: 2, unavailable: false });
      expect(refusing.calls.map((call) => call.userId)).toEqual([refused.userId]);
      const parked = await dlqJourneyStarts(db);
      expect(parked.sort((x, y) => (x.retryCount ?? 0) - (y.retryCount ?? 0))).toEqual([
        { sourceId: refused.eventId, retryCount: 0, error: '3 INVALID_ARGUMENT: search attribute not registered', kind: 'journey-start' },
        {
          sourceId: expired.eventId,
          retryCount: 40,
          error: 'not carried out within JOURNEY_START_RETRY_HOURS (24 h, 40 attempts): 14 UNAVAILABLE: connection refused',
          kind: 'journey-start',
        },
      ]);
      expect((await eventEffectStats(db)).pending).toBe(0);
    });
  }, 60_000);

  it('two relays at once split the rows: every start is asked for exactly once', async () => {
    await withDb(async (db) => {
      for (let i = 0; i < 40; i += 1) await keep(db, `pair${i}`);
      // a slow engine keeps both passes' claims open at the same time
      const slow = engine(() => new Promise((resolve) => setTimeout(resolve, 20)));
      const [first, second] = await Promise.all([
        relayEventEffects({ db, orchestrator: slow, logger, retryHours: 24 }, { limit: 25 }),
        relayEventEffects({ db, orchestrator: slow, logger, retryHours: 24 }, { limit: 25 }),
      ]);
      expect(first.done + second.done).toBe(40);
      const third = await relayEventEffects({ db, orchestrator: slow, logger, retryHours: 24 }, { limit: 25 });
      expect(third.claimed).toBe(0);
      expect(slow.calls).toHaveLength(40);
      expect(new Set(slow.calls.map((call) => call.trigger.eventId)).size).toBe(40);
    });
  }, 60_000);

  it('continues the trace kept with the row: the start is made inside a span whose parent is the request that stored the event', async () => {
    await withDb(async (db) => {
      const kept = await keep(db, 'traced');
      const caller = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      await db.updateTable('eventEffects').set({ traceContext: caller }).where('eventId', '=', kept.eventId).execute();
      const exporter = new InMemorySpanExporter();
      const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      provider.register();
      try {
        // what Temporal's client interceptor would carry to the run: the trace active at the start
        const seen: (string | undefined)[] = [];
        const up = engine(async () => {
          seen.push(currentTraceparent());
        });
        expect(await relayEventEffects({ db, orchestrator: up, logger, retryHours: 24 })).toMatchObject({ done: 1 });
        const [span] = exporter.getFinishedSpans();
        expect(span!.name).toBe('journey effect start');
        expect(span!.parentSpanId).toBe('00f067aa0ba902b7');
        expect(span!.attributes).toMatchObject({ 'waymark.journey.id': 'welcome-series', 'waymark.user.id': kept.userId, 'waymark.event.id': kept.eventId });
        expect(seen).toEqual([`00-4bf92f3577b34da6a3ce929d0e0e4736-${span!.spanContext().spanId}-01`]);
      } finally {
        await provider.shutdown();
        trace.disable();
        context.disable();
        propagation.disable();
      }
    });
  }, 60_000);
});

describe('parking a refused start', () => {
  it('two executors parking the same effect at once (a retried request and a dispatcher past its lease) leave one DLQ entry', async () => {
    await withDb(async (db) => {
      const refused = await keep(db, 'twice');
      const effect = { eventId: refused.eventId, seq: 1 };
      const error = '3 INVALID_ARGUMENT: search attribute not registered';
      const parked = await Promise.all([parkStart(db, refused.request, effect, error, 0), parkStart(db, refused.request, effect, error, 0)]);
      expect(parked.sort()).toEqual([false, true]);
      // and one that comes after the row is gone parks nothing either
      expect(await parkStart(db, refused.request, effect, error, 0)).toBe(false);
      expect(await dlqJourneyStarts(db)).toEqual([{ sourceId: refused.eventId, retryCount: 0, error, kind: 'journey-start' }]);
      expect((await eventEffectStats(db)).pending).toBe(0);
    });
  }, 60_000);
});
