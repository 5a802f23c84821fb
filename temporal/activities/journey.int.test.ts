import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_DELIVERY_POLICY, type Journey } from '@waymark/journey';
import { createApiKey } from '@waymark/core/auth/api-keys';
import { createEffectDispatcher } from '@waymark/core/events/effect-dispatcher';
import { ingestEvent, type IngestInput } from '@waymark/core/events/ingest';
import { createJourneyRegistry } from '@waymark/core/journeys/registry';
import { createLogger } from '@waymark/core/logging/logger';
import { journeys } from '@waymark/journeys';
import { eventually } from '../../test/eventually';
import { journeyStatesOf } from '../../test/journey-states';
import { startTestApi, type TestApi } from '../../test/test-api';
import { createJourneyActivities } from './journey';
import { deploymentCategories } from '../../test/deployment-categories';

/** Only lifecycle events of this journey are routed below, so other tests' runs chain nothing. */
const finishedJourney = (event: 'journey:completed' | 'journey:failed') => ({
  event,
  where: [{ type: 'property' as const, property: 'journeyId', operator: 'eq' as const, value: 'trial-conversion' }],
});

/**
 * journeys/ has no journey chained on a lifecycle event, so the pipeline here routes with this
 * deployment's journeys re-wired: welcome-series is triggered by a completed trial-conversion and
 * re-engagement also exits on a failed one. Routing and the exit check run in the ingest call (api
 * side), so the worker still runs the real definitions.
 */
function chainedJourneys(): Journey[] {
  return journeys.map((journey) => {
    if (journey.id === 'welcome-series') return { ...journey, trigger: finishedJourney('journey:completed') };
    if (journey.id === 're-engagement') return { ...journey, exitOn: [...journey.exitOn, finishedJourney('journey:failed')] };
    return journey;
  });
}

describe('finishJourneyRun activity: lifecycle events go back through the ingest pipeline', () => {
  let api: TestApi;
  let activities: ReturnType<typeof createJourneyActivities>;
  beforeAll(async () => {
    api = await startTestApi();
    const logger = createLogger({ level: 'error', name: 'journey-activity-test', format: 'json' });
    const ingestDeps = {
      db: api.deps.db,
      logger,
      journeys: createJourneyRegistry(chainedJourneys(), { enabledJourneys: '*' }),
      effects: createEffectDispatcher({ db: api.deps.db, logger, orchestrator: api.deps.temporal.orchestrator }),
      catalogMode: api.config.eventCatalogMode,
    };
    activities = createJourneyActivities({
      categories: deploymentCategories,
      db: api.deps.db,
      config: { defaultTimeZone: 'UTC' },
      journeys: ingestDeps.journeys,
      ingest: (input: IngestInput) => ingestEvent(ingestDeps, input),
      deliveryPolicy: NO_DELIVERY_POLICY,
    });
  });
  afterAll(() => api.close());

  /** A trial-conversion state as its run's first activity leaves it (no workflow behind it: the test plays the run). */
  async function enteredTrial(userId: string) {
    const workflowId = `journey:trial-conversion:${userId}:${randomUUID()}`;
    const entry = await activities.enterJourney({
      journeyId: 'trial-conversion',
      userId,
      userEmail: `${userId}@example.com`,
      workflowId,
      runId: randomUUID(),
      entryLimit: 'once',
      context: {},
    });
    if (!entry.entered) throw new Error(`trial-conversion entry rejected: ${entry.reason}`);
    expect(await activities.recordJourneyStep({ stateId: entry.stateId, toNodeId: 'trial-last-chance', action: 'email_sent' })).toBe(true);
    const state = await api.deps.db.selectFrom('journeyStates').selectAll().where('id', '=', entry.stateId).executeTakeFirstOrThrow();
    return { stateId: entry.stateId, workflowId, enteredAt: state.createdAt };
  }

  /** docs/journeys.md "Lifecycle events": the properties of journey:completed (journey:failed adds errorMessage). */
  const documentedPayload = (trial: Awaited<ReturnType<typeof enteredTrial>>, status: 'completed' | 'failed') => ({
    journeyId: 'trial-conversion',
    journeyName: 'Trial conversion',
    stateId: trial.stateId,
    workflowId: trial.workflowId,
    status,
    lastNodeId: 'trial-last-chance',
    enteredAt: trial.enteredAt.toISOString(),
    finishedAt: expect.any(String),
  });

  const lifecycleEvents = (userId: string, name: string) =>
    api.deps.db.selectFrom('events').selectAll().where('userId', '=', userId).where('event', '=', name).execute();

  it('journey:completed is stored with the documented payload and starts the journey it triggers', async () => {
    const userId = `u-${randomUUID()}`;
    const trial = await enteredTrial(userId);
    const before = Date.now();

    await activities.finishJourneyRun({ stateId: trial.stateId, status: 'completed', journeyName: 'Trial conversion' });

    const finished = await api.deps.db.selectFrom('journeyStates').selectAll().where('id', '=', trial.stateId).executeTakeFirstOrThrow();
    expect(finished).toMatchObject({ status: 'completed', errorMessage: null });
    expect(finished.completedAt).not.toBeNull();
    const [event, ...others] = await lifecycleEvents(userId, 'journey:completed');
    expect(others).toEqual([]);
    expect(event).toMatchObject({ userEmail: `${userId}@example.com`, source: 'lifecycle', idempotencyKey: `journey:completed:${trial.stateId}` });
    expect(event!.properties).toEqual(documentedPayload(trial, 'completed'));
    expect(Date.parse((event!.properties as { finishedAt: string }).finishedAt)).toBeGreaterThanOrEqual(before - 1_000);

    // routed: the lifecycle event started a welcome-series run for the same user, keyed by that event
    const [welcome] = await eventually(
      () => journeyStatesOf(api.deps.db, userId, 'welcome-series'),
      (rows) => rows[0]?.status === 'waiting',
      {
        what: 'the welcome-series run started by journey:completed',
      },
    );
    expect(welcome).toMatchObject({ userEmail: `${userId}@example.com`, workflowId: `journey:welcome-series:${userId}:${event!.id}` });

    // an activity retry emits nothing twice (the state is already finished)
    await activities.finishJourneyRun({ stateId: trial.stateId, status: 'completed', journeyName: 'Trial conversion' });
    expect(await lifecycleEvents(userId, 'journey:completed')).toHaveLength(1);
  });

  it('a failed run is parked in the DLQ with its request, and a retry runs the journey again for the user', async () => {
    const userId = `u-${randomUUID()}`;
    const trial = await enteredTrial(userId);
    const request = {
      journeyId: 'trial-conversion',
      userId,
      userEmail: `${userId}@example.com`,
      properties: { plan: 'pro' },
      trigger: { event: 'trial.started', eventId: randomUUID(), occurredAt: new Date().toISOString() },
    };
    await activities.finishJourneyRun({
      stateId: trial.stateId,
      status: 'failed',
      errorMessage: 'SES gave up',
      journeyName: 'Trial conversion',
      retryRequest: request,
    });
    // the activity retried after its commit parks nothing twice
    await activities.finishJourneyRun({
      stateId: trial.stateId,
      status: 'failed',
      errorMessage: 'SES gave up',
      journeyName: 'Trial conversion',
      retryRequest: request,
    });

    const parked = await api.deps.db.selectFrom('dlqEntries').selectAll().where('source', '=', 'journey').where('sourceId', '=', trial.stateId).execute();
    expect(parked).toHaveLength(1);
    expect(parked[0]).toMatchObject({ status: 'pending', error: 'SES gave up', payload: { kind: 'journey-run', stateId: trial.stateId, request } });

    const admin = await createApiKey(api.deps.db, { name: `dlq-${userId}`, scopes: ['full-admin'] });
    const retried = await api.request('POST', `/v1/admin/dlq/${parked[0]!.id}/retry`, { token: admin.key });
    expect(retried).toMatchObject({ status: 200, body: { id: parked[0]!.id, status: 'retried' } });
    // trial-conversion is entryLimit 'once', but every earlier run of this user failed, so the retry is let in
    const states = await eventually(
      () => journeyStatesOf(api.deps.db, userId, 'trial-conversion'),
      (rows) => rows.some((row) => row.workflowId.includes('.retry-') && (row.status === 'active' || row.status === 'waiting')),
      { what: 'the retried trial-conversion run to start' },
    );
    expect(states.filter((row) => row.status === 'failed').map((row) => row.id)).toEqual([trial.stateId]);
    expect((await api.request('POST', `/v1/admin/dlq/${parked[0]!.id}/retry`, { token: admin.key })).status).toBe(409);
  });

  it('journey:failed carries errorMessage and drives the exit check of the user’s other runs', async () => {
    const userId = `u-${randomUUID()}`;
    const started = await api.deps.ingest({
      name: 'user.inactive',
      userId,
      email: `${userId}@example.com`,
      eventProperties: { daysInactive: 30 },
      source: 'api',
    });
    expect(started.stored).toBe(true);
    const [reengagement] = await eventually(
      () => journeyStatesOf(api.deps.db, userId, 're-engagement'),
      (rows) => rows[0]?.status === 'waiting',
      {
        what: 'the re-engagement run to wait',
      },
    );
    const trial = await enteredTrial(userId);

    await activities.finishJourneyRun({
      stateId: trial.stateId,
      status: 'failed',
      errorMessage: 'template trial-last-chance missing',
      journeyName: 'Trial conversion',
    });

    const failed = await api.deps.db.selectFrom('journeyStates').selectAll().where('id', '=', trial.stateId).executeTakeFirstOrThrow();
    expect(failed).toMatchObject({ status: 'failed', errorMessage: 'template trial-last-chance missing' });
    const logs = await api.deps.db
      .selectFrom('journeyLogs')
      .select(['action', 'detail'])
      .where('journeyStateId', '=', trial.stateId)
      .orderBy('createdAt')
      .execute();
    expect(logs.at(-1)).toEqual({ action: 'failed', detail: { error: 'template trial-last-chance missing' } });

    const [event, ...others] = await lifecycleEvents(userId, 'journey:failed');
    expect(others).toEqual([]);
    expect(event).toMatchObject({ source: 'lifecycle', idempotencyKey: `journey:failed:${trial.stateId}` });
    expect(event!.properties).toEqual({ ...documentedPayload(trial, 'failed'), errorMessage: 'template trial-last-chance missing' });

    // routed: the exit rule on journey:failed ended the waiting re-engagement state and cancelled its run
    const exited = await api.deps.db.selectFrom('journeyStates').selectAll().where('id', '=', reengagement!.id).executeTakeFirstOrThrow();
    expect(exited.status).toBe('exited');
    expect(exited.exitedAt).not.toBeNull();
    const run = await eventually(
      () => api.deps.temporal.client.workflow.getHandle(reengagement!.workflowId).describe(),
      (description) => description.status.name === 'CANCELLED',
      { what: 'the re-engagement run to be cancelled' },
    );
    expect(run.status.name).toBe('CANCELLED');
  });

  it('an exited run emits no lifecycle event', async () => {
    const userId = `u-${randomUUID()}`;
    const trial = await enteredTrial(userId);
    await activities.finishJourneyRun({ stateId: trial.stateId, status: 'exited', journeyName: 'Trial conversion' });
    const state = await api.deps.db.selectFrom('journeyStates').select(['status']).where('id', '=', trial.stateId).executeTakeFirstOrThrow();
    expect(state.status).toBe('exited');
    const events = await api.deps.db.selectFrom('events').select('event').where('userId', '=', userId).execute();
    expect(events).toEqual([]);
  });
});
