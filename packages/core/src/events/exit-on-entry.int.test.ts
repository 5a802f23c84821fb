import { randomUUID } from 'node:crypto';
import { defineJourney } from '@waymark/journey';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import { createJourneyRegistry } from '../journeys/registry';
import { recordJourneyStep } from '../journeys/run-steps';
import { createLogger } from '../logging/logger';
import { integrationEnv } from '../../../../test/test-env';
import { enterByHand } from '../../../../test/journey-states';
import { eventually } from '../../../../test/eventually';
import { transactionRaces } from '../../../../test/transaction-races';
import type { EffectDispatcher } from './effect-dispatcher';
import type { EventEffect } from './effects-statement';
import { lockExitsOf } from './exit-lock';
import { exitIfLeftBeforeEntry } from './exit-on-entry';
import { ingestEvent } from './ingest';
import { findUserEventsSince } from './user-history';

/** The entry's look-back for exit events stored between the trigger and the entry, and a wait's for the event it waits for, against real PostgreSQL. */
describe('exitIfLeftBeforeEntry', () => {
  const config = loadConfig(integrationEnv());
  const journey = defineJourney({
    id: `exit-entry-${randomUUID().slice(0, 8)}`,
    name: 'exit at entry',
    description: 'exits when the account is closed',
    trigger: { event: 'exit-entry.started' },
    exitOn: [{ event: 'exit-entry.left', where: [{ type: 'property', property: 'reason', operator: 'eq', value: 'closed' }] }],
    run: async () => undefined,
  });
  // a goal journey, exiting on its goal (the default) or not
  const goalJourney = (exitOnGoal: boolean) =>
    defineJourney({
      id: `exit-entry-goal-${exitOnGoal ? 'exits' : 'stays'}-${randomUUID().slice(0, 8)}`,
      name: 'goal at entry',
      description: 'converts when the project is published',
      trigger: { event: 'exit-entry.started' },
      goal: {
        event: 'exit-entry.published',
        within: '1 day',
        where: [{ type: 'property', property: 'public', operator: 'eq', value: 'yes' }],
        value: 'amount',
      },
      ...(exitOnGoal ? {} : { exitOnGoal: false }),
      run: async () => undefined,
    });
  const exitingOnGoal = goalJourney(true);
  const stayingOnGoal = goalJourney(false);
  const journeys = createJourneyRegistry([journey, exitingOnGoal, stayingOnGoal], { enabledJourneys: '*' });
  let db: Db;
  beforeAll(() => {
    // the races below: an open transaction, the exit's store, the entry, its look-back and the test's reads at once
    db = createDatabase({ connectionString: config.databaseUrl, max: 6 });
  });
  afterAll(() => db.destroy());

  const store = async (userId: string, event: string, properties: Record<string, string> = {}, createdAt = new Date()) =>
    (
      await db
        .insertInto('events')
        .values({ userId, event, properties: JSON.stringify(properties), occurredAt: createdAt, createdAt })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const enter = async (userId: string, triggerEventId: string, journeyId = journey.id) => {
    const { stateId, workflowId } = await enterByHand(db, { journeyId, userId, trigger: { event: 'exit-entry.started', eventId: triggerEventId } });
    return { journeyId, userId, triggerEventId, stateId, workflowId };
  };
  const state = (id: string) => db.selectFrom('journeyStates').select(['status']).where('id', '=', id).executeTakeFirstOrThrow();

  it('exits with the first event after the trigger that passes the exit rule, logged as a live exit', async () => {
    const userId = `exit-entry-${randomUUID().slice(0, 8)}`;
    const trigger = await store(userId, 'exit-entry.started');
    await store(userId, 'exit-entry.left', { reason: 'moved' });
    const run = await enter(userId, trigger);
    expect(await exitIfLeftBeforeEntry({ db, journeys }, run)).toBeUndefined();
    expect(await state(run.stateId)).toEqual({ status: 'active' });

    const closed = await store(userId, 'exit-entry.left', { reason: 'closed' });
    expect(await exitIfLeftBeforeEntry({ db, journeys }, run)).toEqual({ eventId: closed, name: 'exit-entry.left' });
    expect(await state(run.stateId)).toEqual({ status: 'exited' });
    const logs = await db.selectFrom('journeyLogs').select(['action', 'detail']).where('journeyStateId', '=', run.stateId).orderBy('createdAt').execute();
    expect(logs).toEqual([
      { action: 'entered', detail: { trigger: { event: 'exit-entry.started', eventId: trigger } } },
      { action: 'exited', detail: { reason: 'exit_rule', event: 'exit-entry.left', eventId: closed } },
    ]);
    // a retried entry finds nothing more to do
    expect(await exitIfLeftBeforeEntry({ db, journeys }, run)).toBeUndefined();
  });

  it('leaves alone a run whose exit event came before its trigger', async () => {
    const userId = `exit-entry-${randomUUID().slice(0, 8)}`;
    // a second earlier: two stores within one millisecond of the test's clock would share a time, and count as one batch
    await store(userId, 'exit-entry.left', { reason: 'closed' }, new Date(Date.now() - 1000));
    const run = await enter(userId, await store(userId, 'exit-entry.started'));
    expect(await exitIfLeftBeforeEntry({ db, journeys }, run)).toBeUndefined();
    expect(await state(run.stateId)).toEqual({ status: 'active' });
  });
  /*
   * The goal's event stored between the trigger and the entry (the start waited in the outbox): the
   * store found no state to convert, so the entry's look-back converts it, as simulate's run
   * started with its trigger would have been, and exits it unless the journey says otherwise.
   */
  const conversionOf = async (stateId: string) => ({
    ...(await db.selectFrom('journeyStates').select(['status', 'conversionEventId', 'conversionValue']).where('id', '=', stateId).executeTakeFirstOrThrow()),
    logs: (await db.selectFrom('journeyLogs').select(['action', 'detail']).where('journeyStateId', '=', stateId).orderBy('createdAt').execute()).slice(1),
  });

  it('a goal met before the entry converts the enrollment and exits the run, logged as the store would', async () => {
    const userId = `exit-entry-goal-${randomUUID().slice(0, 8)}`;
    const trigger = await store(userId, 'exit-entry.started');
    await store(userId, 'exit-entry.published', { public: 'no', amount: '5' });
    const goal = await store(userId, 'exit-entry.published', { public: 'yes', amount: '40' });
    const run = await enter(userId, trigger, exitingOnGoal.id);
    expect(await exitIfLeftBeforeEntry({ db, journeys }, run)).toEqual({ eventId: goal, name: 'exit-entry.published' });
    expect(await conversionOf(run.stateId)).toEqual({
      status: 'exited',
      conversionEventId: goal,
      conversionValue: 40,
      logs: [
        { action: 'converted', detail: { event: 'exit-entry.published', eventId: goal, value: 40 } },
        { action: 'exited', detail: { reason: 'goal', event: 'exit-entry.published', eventId: goal } },
      ],
    });
    // a retried entry converts and exits nothing twice
    expect(await exitIfLeftBeforeEntry({ db, journeys }, run)).toBeUndefined();
    expect((await conversionOf(run.stateId)).logs).toHaveLength(2);
  });

  it('with exitOnGoal false the goal converts and the run goes on; a goal past its window does neither', async () => {
    const userId = `exit-entry-goal-${randomUUID().slice(0, 8)}`;
    const trigger = await store(userId, 'exit-entry.started');
    const goal = await store(userId, 'exit-entry.published', { public: 'yes' });
    const staying = await enter(userId, trigger, stayingOnGoal.id);
    expect(await exitIfLeftBeforeEntry({ db, journeys }, staying)).toBeUndefined();
    expect(await conversionOf(staying.stateId)).toEqual({
      status: 'active',
      conversionEventId: goal,
      conversionValue: null,
      logs: [{ action: 'converted', detail: { event: 'exit-entry.published', eventId: goal, value: null } }],
    });

    const late = `exit-entry-goal-late-${randomUUID().slice(0, 8)}`;
    const dayAgo = new Date(Date.now() - 25 * 3600_000);
    const lateTrigger = await store(late, 'exit-entry.started', {}, dayAgo);
    await store(late, 'exit-entry.published', { public: 'yes' });
    const run = await enter(late, lateTrigger, exitingOnGoal.id);
    expect(await exitIfLeftBeforeEntry({ db, journeys }, run)).toBeUndefined();
    expect(await conversionOf(run.stateId)).toEqual({ status: 'active', conversionEventId: null, conversionValue: null, logs: [] });
  });

  it('an exit and a trigger with the same timestamps resolve the same way whichever is stored first: the exit counts', async () => {
    const at = new Date();
    for (const order of [
      ['exit-entry.left', 'exit-entry.started'],
      ['exit-entry.started', 'exit-entry.left'],
    ]) {
      const userId = `exit-entry-tie-${randomUUID().slice(0, 8)}`;
      // one statement (one batch): one created_at, and the same occurred_at to the millisecond
      const rows = await db
        .insertInto('events')
        .values(order.map((event) => ({ userId, event, properties: JSON.stringify(event === 'exit-entry.left' ? { reason: 'closed' } : {}), occurredAt: at })))
        .returning(['id', 'event', 'createdAt'])
        .execute();
      expect(new Set(rows.map((row) => row.createdAt.getTime())).size).toBe(1);
      const trigger = rows.find((row) => row.event === 'exit-entry.started')!.id;
      const exit = rows.find((row) => row.event === 'exit-entry.left')!.id;
      const run = await enter(userId, trigger);
      expect(await exitIfLeftBeforeEntry({ db, journeys }, run)).toEqual({ eventId: exit, name: 'exit-entry.left' });
      expect(await state(run.stateId)).toEqual({ status: 'exited' });
    }
  });

  it('an exit stored before the trigger with the same occurredAt does not exit the run', async () => {
    const userId = `exit-entry-tie-${randomUUID().slice(0, 8)}`;
    const at = new Date();
    await db
      .insertInto('events')
      .values({ userId, event: 'exit-entry.left', properties: JSON.stringify({ reason: 'closed' }), occurredAt: at })
      .execute();
    const trigger = (
      await db.insertInto('events').values({ userId, event: 'exit-entry.started', properties: '{}', occurredAt: at }).returning('id').executeTakeFirstOrThrow()
    ).id;
    const run = await enter(userId, trigger);
    expect(await exitIfLeftBeforeEntry({ db, journeys }, run)).toBeUndefined();
    expect(await state(run.stateId)).toEqual({ status: 'active' });
  });

  /*
   * An exit event stored by one request while the person's run enters (its trigger stored a moment
   * before), forced into each order: the person ends exited, once (exit-lock.ts). Without the lock
   * the first order left the run going: the store read the live states before the entry's state was
   * committed, the look-back read the events before the exit was committed.
   */
  // the runs are entered by hand here: the kept effects are recorded, not carried out
  const dispatched: { eventId: string; effects: EventEffect[] }[] = [];
  const effects: EffectDispatcher = {
    dispatch: (event, kept) => void dispatched.push({ eventId: event.id, effects: [...kept] }),
    finish: async () => undefined,
    close: async () => undefined,
  };
  const logger = createLogger({ level: 'error', name: 'exit-entry-test', format: 'json' });
  const ingest = (input: Parameters<typeof ingestEvent>[1]) => ingestEvent({ db, logger, journeys, effects, catalogMode: 'quarantine' }, input);
  const storeTrigger = async (userId: string) => (await ingest({ name: 'exit-entry.started', userId, email: `${userId}@example.com`, source: 'api' })).eventId;
  const storeExit = (userId: string, idempotencyKey?: string) =>
    ingest({ name: 'exit-entry.left', userId, eventProperties: { reason: 'closed' }, idempotencyKey, source: 'api' });
  const { started, waitsOn, holding, blockedBy, storeHeldOnKey } = transactionRaces(() => db);
  const outcome = async (stateId: string) => ({
    status: (await db.selectFrom('journeyStates').select('status').where('id', '=', stateId).executeTakeFirstOrThrow()).status,
    exits: await db.selectFrom('journeyLogs').select('detail').where('journeyStateId', '=', stateId).where('action', '=', 'exited').execute(),
  });

  const storeGoal = (userId: string, idempotencyKey?: string) =>
    ingest({ name: 'exit-entry.published', userId, eventProperties: { public: 'yes' }, idempotencyKey, source: 'api' });
  it.each([
    { what: 'an exit rule', journeyId: () => journey.id, store: storeExit, name: 'exit-entry.left', reason: 'exit_rule' },
    { what: 'a goal', journeyId: () => exitingOnGoal.id, store: storeGoal, name: 'exit-entry.published', reason: 'goal' },
  ])(
    'exit first ($what): an exit that read before the state was committed and commits after the entry looks back is waited for, and exits the run',
    async (exit) => {
      const userId = `exit-entry-first-${randomUUID().slice(0, 8)}`;
      // the trigger is stored before the exit's request comes: the exit counts against the run
      const triggerEventId = await storeTrigger(userId);
      const key = `exit-entry-${randomUUID()}`;
      const { storing, lookBack, stateId } = await holding(async (hold, holder) => {
        // the exit's store statement takes its snapshot (after its user's exit lock) and waits on its key
        const storing = await storeHeldOnKey(hold, holder, key, () => exit.store(userId, key));
        const [storePid] = await blockedBy(holder);
        if (storePid === undefined) throw new Error('no store waits on the key');
        // the run enters now, its state committed after the exit's read, and looks back: with the
        // lock it waits for the exit's commit; without it, it finds nothing and returns
        const run = await enter(userId, triggerEventId, exit.journeyId());
        const lookBack = started(() => exitIfLeftBeforeEntry({ db, journeys }, run));
        await waitsOn(storePid, lookBack, 'the look-back to wait for the exit or to return');
        return { storing, lookBack, stateId: run.stateId };
      });
      const stored = await storing.done;
      // the store read no live state: the look-back exits the run with it
      expect(stored).toMatchObject({ stored: true, exits: [] });
      expect(await lookBack.done).toEqual({ eventId: stored.eventId, name: exit.name });
      expect(await outcome(stateId)).toEqual({
        status: 'exited',
        exits: [{ detail: { reason: exit.reason, event: exit.name, eventId: stored.eventId } }],
      });
    },
  );

  it('entry first: an exit that comes while the entry looks back reads the entered state and exits the run, once', async () => {
    const userId = `exit-entry-second-${randomUUID().slice(0, 8)}`;
    const run = await enter(userId, await storeTrigger(userId));
    const { storing, lookBack } = await holding(async (hold, holder) => {
      // the user's exit lock held by the open transaction: the look-back queues on it first, the
      // exit's store behind it, and both go in that order once it is let go
      await lockExitsOf(hold, [userId]);
      const lookBack = started(() => exitIfLeftBeforeEntry({ db, journeys }, run));
      const first = await waitsOn(holder, lookBack, 'the look-back to queue on the exit lock or to return');
      const storing = started(() => storeExit(userId));
      await waitsOn(holder, storing, 'the exit to queue on the exit lock or to be stored', typeof first === 'number' ? [first] : []);
      return { storing, lookBack };
    });
    // the look-back found no exit; the store read the live state and exited it
    expect(await lookBack.done).toBeUndefined();
    const stored = await storing.done;
    expect(stored).toMatchObject({ stored: true, exits: [{ journeyId: journey.id, stateId: run.stateId, exited: true }] });
    expect(await outcome(run.stateId)).toEqual({
      status: 'exited',
      exits: [{ detail: { reason: 'exit_rule', event: 'exit-entry.left', eventId: stored.eventId } }],
    });
  });

  /*
   * A run starts waiting for an event (its state says `waitingFor`, then it looks back for the
   * event) while a request stores that event: either the store reads the waiting state and signals
   * the run, or the look-back finds the event. Forced here into the order that used to lose it: the
   * event's store statement took its snapshot before the wait was committed, and committed only
   * after the look-back had read.
   */
  /** journey steps (recordJourneyStep's statement) waiting on a lock */
  const movesWaiting = async () =>
    (await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%step_moved as (%'`.execute(db))
      .rows[0]!.n;

  it('the event stored while the run starts waiting reaches the run: signalled, or found by its look-back', async () => {
    const userId = `exit-entry-wait-${randomUUID().slice(0, 8)}`;
    const { stateId, workflowId } = await enter(userId, await storeTrigger(userId));
    const since = new Date();
    const key = `exit-entry-wait-${randomUUID()}`;

    const { storing, moved, lookedBack } = await holding(async (hold, holder) => {
      // the event's store statement takes its snapshot, then waits on its key, uncommitted until the holder lets go
      const storing = await storeHeldOnKey(hold, holder, key, () => ingest({ name: 'exit-entry.viewed', userId, idempotencyKey: key, source: 'api' }));
      // the run starts waiting, as the workflow's waitForEvent does: its state first, then the look-back
      const moving = started(() =>
        recordJourneyStep(db, {
          stateId,
          toNodeId: 'wait-pricing',
          action: 'waiting',
          status: 'waiting',
          context: { waitingFor: 'exit-entry.viewed' },
        }),
      );
      // a move held back by the store (it read the state first) commits after the event: its
      // look-back then finds it, so there is nothing to race; a move that went through looks back now
      const move = await eventually(
        async () => (moving.settled ? 'committed' : (await movesWaiting()) > 0 ? 'held back' : undefined),
        (found) => found !== undefined,
        { intervalMs: 20, what: 'the move to commit or to wait on the store' },
      );
      if (move === 'held back') return { storing, moved: moving, lookedBack: undefined };
      const lookedBack = await findUserEventsSince(db, { userId, name: 'exit-entry.viewed', since });
      return { storing, moved: moving, lookedBack };
    });
    const stored = await storing.done;
    expect(stored.stored).toBe(true);
    expect(await moved.done).toBe(true);
    const found = lookedBack ?? (await findUserEventsSince(db, { userId, name: 'exit-entry.viewed', since }));
    const signals = dispatched
      .filter((entry) => entry.eventId === stored.eventId)
      .flatMap((entry) => entry.effects)
      .filter((effect) => effect.kind === 'signal' && effect.workflowId === workflowId);
    // told once at least: the store's signal or the look-back's find (the run dedupes by event id)
    expect({ signalled: signals.length > 0, found: found.some((event) => event.eventId === stored.eventId) }).not.toEqual({ signalled: false, found: false });
  });
});
