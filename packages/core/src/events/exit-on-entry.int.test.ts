import { randomUUID } from 'node:crypto';
import { defineJourney } from '@waymark/journey';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import { createJourneyRegistry } from '../journeys/registry';
import { enterJourney } from '../journeys/run-steps';
import { integrationEnv } from '../../../../test/test-env';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { exitIfLeftBeforeEntry } from './exit-on-entry';

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
    db = createDatabase({ connectionString: config.databaseUrl, max: 2 });
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
});
