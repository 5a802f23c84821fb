import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase, type Db } from '@waymark/core/db/database';
import type { EnterJourneyInput } from '@waymark/core/journeys/run-steps';
import { deploymentCategories } from '../../test/deployment-categories';
import { integrationEnv } from '../../test/test-env';
import { enterWithVia, type EnterJourneyWith } from '../entry-with-first-step';
import { createEnterJourneyWithActivities } from './enter-journey-with';
import { NO_DELIVERY_POLICY } from '@waymark/journey';
import { createJourneyActivities } from './journey';

/** The entry made with a run's first call, against real PostgreSQL (journey-run.ts decides when). */
describe('enterJourneyWith: the entry and the first step as one activity', () => {
  const config = loadConfig(integrationEnv());
  let db: Db;
  let enterWith: EnterJourneyWith;
  beforeAll(() => {
    db = createDatabase({ connectionString: config.databaseUrl, max: 2 });
    const journey = createJourneyActivities({
      db,
      categories: deploymentCategories,
      config: { defaultTimeZone: 'UTC' },
      journeys: { find: () => undefined },
      ingest: () => Promise.reject(new Error('no run here finishes')),
      deliveryPolicy: NO_DELIVERY_POLICY,
    });
    enterWith = enterWithVia(
      createEnterJourneyWithActivities({
        ...journey,
        sendJourneyEmail: () => Promise.reject(new Error('no run here sends')),
      }),
    );
  });
  afterAll(() => db.destroy());

  const entryOf = (userId: string, journeyId: string): EnterJourneyInput & { stateId: string } => ({
    journeyId,
    userId,
    userEmail: `${userId}@example.com`,
    workflowId: `journey:${journeyId}:${userId}:${randomUUID()}`,
    runId: randomUUID(),
    entryLimit: 'once',
    context: { trigger: { event: 'user.signed_up' } },
    stateId: randomUUID(),
  });
  const firstStep = (stateId: string) => ({
    name: 'recordJourneyStep' as const,
    input: { stateId, toNodeId: 'sleep:1 day', action: 'waiting', status: 'waiting' as const },
  });
  const logsOf = (stateId: string) =>
    db.selectFrom('journeyLogs').select(['action', 'toNodeId']).where('journeyStateId', '=', stateId).orderBy('createdAt').orderBy('id').execute();

  it('enters under the id the run chose, then makes the step; a retry repeats neither', async () => {
    const journeyId = `with-step-${randomUUID().slice(0, 8)}`;
    const entry = entryOf(`u-${randomUUID().slice(0, 8)}`, journeyId);
    const input = { entry, step: firstStep(entry.stateId) };

    expect(await enterWith(input)).toEqual({ entered: true, result: true });
    const state = await db.selectFrom('journeyStates').selectAll().where('workflowId', '=', entry.workflowId).executeTakeFirstOrThrow();
    expect(state).toMatchObject({ id: entry.stateId, status: 'waiting', currentNodeId: 'sleep:1 day', userEmail: entry.userEmail });

    // an attempt retried after both halves committed: the entry finds its state, the step moves it again
    expect(await enterWith(input)).toEqual({ entered: true, result: true });
    expect(await db.selectFrom('journeyStates').select('id').where('workflowId', '=', entry.workflowId).execute()).toHaveLength(1);
    expect((await logsOf(entry.stateId)).map((log) => log.action)).toEqual(['entered', 'waiting', 'waiting']);
  });

  it('a refused entry makes no step and leaves nothing behind', async () => {
    const journeyId = `with-step-${randomUUID().slice(0, 8)}`;
    const userId = `u-${randomUUID().slice(0, 8)}`;
    const first = entryOf(userId, journeyId);
    expect(await enterWith({ entry: first, step: firstStep(first.stateId) })).toMatchObject({ entered: true });

    const again = entryOf(userId, journeyId);
    expect(await enterWith({ entry: again, step: firstStep(again.stateId) })).toEqual({ entered: false, reason: 'entry_limit' });
    expect(await db.selectFrom('journeyStates').select('id').where('id', '=', again.stateId).execute()).toEqual([]);
    expect(await logsOf(again.stateId)).toEqual([]);
  });

  it('refuses, for good, a state id other than the one its workflow already entered with', async () => {
    const entry = entryOf(`u-${randomUUID().slice(0, 8)}`, `with-step-${randomUUID().slice(0, 8)}`);
    await enterWith({ entry, step: firstStep(entry.stateId) });
    const otherId = randomUUID();
    const refused = await enterWith({ entry: { ...entry, stateId: otherId }, step: firstStep(otherId) }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApplicationFailure);
    expect(refused).toMatchObject({ type: 'StateIdMismatch', nonRetryable: true });
    expect(await logsOf(otherId)).toEqual([]);
  });
});
