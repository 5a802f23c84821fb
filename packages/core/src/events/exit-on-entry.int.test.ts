import { randomUUID } from 'node:crypto';
import { defineJourney } from '@waymark/journey';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import { createJourneyRegistry } from '../journeys/registry';
import { enterJourney } from '../journeys/run-steps';
import { createLogger } from '../logging/logger';
import { integrationEnv } from '../../../../test/test-env';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { eventually } from '../../../../test/eventually';
import type { EffectDispatcher } from './effect-dispatcher';
import { lockExitsOf } from './exit-lock';
import { exitIfLeftBeforeEntry } from './exit-on-entry';
import { ingestEvent } from './ingest';

/** The entry's look-back for exit events stored between the trigger and the entry, against real PostgreSQL. */
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
  const journeys = createJourneyRegistry([journey], { enabledJourneys: '*' });
  let db: Db;
  beforeAll(() => {
    // the races below: an open transaction, the exit's store, the entry, its look-back and the test's reads at once
    db = createDatabase({ connectionString: config.databaseUrl, max: 6 });
  });
  afterAll(() => db.destroy());

  const store = async (userId: string, event: string, properties: Record<string, string> = {}) =>
    (
      await db
        .insertInto('events')
        .values({ userId, event, properties: JSON.stringify(properties), occurredAt: new Date() })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const enter = async (userId: string, triggerEventId: string) => {
    const entry = await enterJourney(
      db,
      {
        journeyId: journey.id,
        userId,
        userEmail: `${userId}@example.com`,
        workflowId: `journey:${journey.id}:${randomUUID()}`,
        runId: randomUUID(),
        entryLimit: 'once',
        context: { trigger: { event: 'exit-entry.started', eventId: triggerEventId } },
      },
      deploymentCategories,
    );
    if (!entry.entered) throw new Error(`not entered: ${entry.reason}`);
    return { journeyId: journey.id, userId, triggerEventId, stateId: entry.stateId };
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
    await store(userId, 'exit-entry.left', { reason: 'closed' });
    const run = await enter(userId, await store(userId, 'exit-entry.started'));
    expect(await exitIfLeftBeforeEntry({ db, journeys }, run)).toBeUndefined();
    expect(await state(run.stateId)).toEqual({ status: 'active' });
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
  // the runs are entered by hand here, so the kept effects are not carried out
  const effects: EffectDispatcher = { dispatch: () => undefined, finish: async () => undefined, close: async () => undefined };
  const logger = createLogger({ level: 'error', name: 'exit-entry-test', format: 'json' });
  const ingest = (input: Parameters<typeof ingestEvent>[1]) => ingestEvent({ db, logger, journeys, effects, catalogMode: 'quarantine' }, input);
  const storeTrigger = async (userId: string) => (await ingest({ name: 'exit-entry.started', userId, email: `${userId}@example.com`, source: 'api' })).eventId;
  const storeExit = (userId: string, idempotencyKey?: string) =>
    ingest({ name: 'exit-entry.left', userId, eventProperties: { reason: 'closed' }, idempotencyKey, source: 'api' });
  /** `call` started, with whether it has settled yet */
  const started = <T>(call: () => Promise<T>) => {
    const flight = { settled: false, done: call() };
    const settle = () => {
      flight.settled = true;
    };
    void flight.done.then(settle, settle);
    return flight;
  };
  const pidOf = async (trx: Db) => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid;
  /** the backends `pid` blocks */
  const blockedBy = async (pid: number) =>
    (await sql<{ pid: number }>`select pid from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid)) order by pid`.execute(db)).rows.map(
      (row) => row.pid,
    );
  /** waits until `flight` has settled or a backend more than `before` waits on `pid` */
  const waitsOn = (pid: number, flight: { settled: boolean }, what: string, before: readonly number[] = []) =>
    eventually(
      async () => (flight.settled ? 'settled' : (await blockedBy(pid)).find((blocked) => !before.includes(blocked))),
      (found) => found !== undefined,
      { intervalMs: 20, what },
    );
  const outcome = async (stateId: string) => ({
    status: (await db.selectFrom('journeyStates').select('status').where('id', '=', stateId).executeTakeFirstOrThrow()).status,
    exits: await db.selectFrom('journeyLogs').select('detail').where('journeyStateId', '=', stateId).where('action', '=', 'exited').execute(),
  });

  /** `body` with a transaction left open, rolled back at its end whatever happens */
  const holding = async <T>(body: (hold: Db, holder: number) => Promise<T>): Promise<T> => {
    const hold = await db.startTransaction().execute();
    try {
      return await body(hold, await pidOf(hold));
    } finally {
      await hold.rollback().execute();
    }
  };

  it('exit first: an exit that read before the state was committed and commits after the entry looks back is waited for, and exits the run', async () => {
    const userId = `exit-entry-first-${randomUUID().slice(0, 8)}`;
    // the trigger is stored before the exit's request comes: the exit counts against the run
    const triggerEventId = await storeTrigger(userId);
    const key = `exit-entry-${randomUUID()}`;
    const { storing, lookBack, stateId } = await holding(async (hold, holder) => {
      // the exit's Idempotency-Key taken by the open transaction: the exit's store statement takes
      // its snapshot (after its user's exit lock) and waits on the key
      await hold
        .insertInto('events')
        .values({ userId: `${userId}-holder`, event: 'exit-entry.holder', properties: '{}', idempotencyKey: key, occurredAt: new Date() })
        .execute();
      const storing = started(() => storeExit(userId, key));
      const store = await waitsOn(holder, storing, 'the exit to wait on its Idempotency-Key');
      if (store === 'settled') throw new Error('the exit was stored without waiting on its key');
      // the run enters now, its state committed after the exit's read, and looks back: with the
      // lock it waits for the exit's commit; without it, it finds nothing and returns
      const run = await enter(userId, triggerEventId);
      const lookBack = started(() => exitIfLeftBeforeEntry({ db, journeys }, run));
      await waitsOn(store, lookBack, 'the look-back to wait for the exit or to return');
      return { storing, lookBack, stateId: run.stateId };
    });
    const stored = await storing.done;
    // the store read no live state: the look-back exits the run with it
    expect(stored).toMatchObject({ stored: true, exits: [] });
    expect(await lookBack.done).toEqual({ eventId: stored.eventId, name: 'exit-entry.left' });
    expect(await outcome(stateId)).toEqual({
      status: 'exited',
      exits: [{ detail: { reason: 'exit_rule', event: 'exit-entry.left', eventId: stored.eventId } }],
    });
  });

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
});
