import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../../../test/eventually';
import { journeyStatesOf } from '../../../../../test/journey-states';
import { issueApiKey, startTestApi, type TestApi } from '../../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

describe('GET /v1/admin/events/{id}/journeys', () => {
  let api: TestApi;
  let ingestKey: string;
  let readKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    ingestKey = await issueApiKey(api, LEGACY, 'event-journeys-producer', ['ingest']);
    readKey = await issueApiKey(api, LEGACY, 'event-journeys-reader', ['read']);
  });
  afterAll(() => api.close());

  const ingest = async (body: Record<string, unknown>): Promise<string> => {
    const response = await api.request('POST', '/v1/events', { token: ingestKey, body });
    expect(response.status).toBe(202);
    const [event] = (
      await api.request('GET', `/v1/admin/events?userId=${encodeURIComponent(String(body.userId))}&event=${String(body.name)}`, { token: LEGACY })
    ).body.events;
    return event.id as string;
  };
  const journeysOf = (eventId: string, token = readKey) => api.request('GET', `/v1/admin/events/${eventId}/journeys`, { token });

  it('names the run an event started and the run another event exited, with links to the state', async () => {
    const userId = `ej-${randomUUID()}`;
    const signedUp = await ingest({ name: 'user.signed_up', userId, email: `${userId}@example.com` });
    const [state] = await eventually(
      () => journeyStatesOf(api.deps.db, userId, 'welcome-series'),
      (rows) => rows[0]?.status === 'waiting',
      { what: 'the welcome series to start and sleep' },
    );
    const started = await journeysOf(signedUp);
    expect(started.status).toBe(200);
    expect(started.body.journeys).toEqual([
      {
        effect: 'started',
        journeyId: 'welcome-series',
        journeyName: 'Welcome series',
        stateId: state!.id,
        status: 'waiting',
        nodeId: 'start',
        at: expect.any(String),
      },
    ]);

    const deleted = await ingest({ name: 'user.deleted', userId });
    const exited = await journeysOf(deleted);
    expect(exited.body.journeys).toEqual([
      {
        effect: 'exited',
        journeyId: 'welcome-series',
        journeyName: 'Welcome series',
        stateId: state!.id,
        status: 'exited',
        nodeId: state!.currentNodeId,
        at: expect.any(String),
      },
    ]);
    // the starting event now shows the state as it is: exited
    expect((await journeysOf(signedUp)).body.journeys).toMatchObject([{ effect: 'started', status: 'exited' }]);
    // an event that touched no run
    expect((await journeysOf(await ingest({ name: 'page.viewed', userId }))).body.journeys).toEqual([]);
  });

  it('lists a resumed wait, and a run restarted from the DLQ as started by the original event', async () => {
    const userId = `ej-dlq-${randomUUID()}`;
    const eventId = await ingest({ name: 'trial.started', userId, email: `${userId}@example.com`, eventProperties: { plan: 'free' } });
    // a DLQ retry starts the run with `<event id>.retry-<dlq id>` (journey-dead-letters.ts); this one then waited for the same user's event
    const [state] = await api.deps.db
      .insertInto('journeyStates')
      .values({
        journeyId: 'trial-conversion',
        userId,
        userEmail: `${userId}@example.com`,
        workflowId: `test-${randomUUID()}`,
        context: JSON.stringify({ trigger: { event: 'trial.started', eventId: `${eventId}.retry-${randomUUID()}`, occurredAt: new Date().toISOString() } }),
      })
      .returning('id')
      .execute();
    const pricing = await ingest({ name: 'pricing.viewed', userId });
    await api.deps.db
      .insertInto('journeyLogs')
      .values({
        journeyStateId: state!.id,
        fromNodeId: 'wait-pricing',
        toNodeId: 'wait-pricing',
        action: 'resumed',
        detail: JSON.stringify({ event: 'pricing.viewed', eventId: pricing }),
      })
      .execute();

    expect((await journeysOf(eventId)).body.journeys).toMatchObject([
      { effect: 'started', journeyId: 'trial-conversion', stateId: state!.id, status: 'active' },
    ]);
    expect((await journeysOf(pricing)).body.journeys).toMatchObject([
      { effect: 'resumed', journeyId: 'trial-conversion', stateId: state!.id, nodeId: 'wait-pricing' },
    ]);
  });

  it('answers 404 for an unknown event, 400 for a malformed id, 403 to an ingest-only key', async () => {
    expect(await journeysOf(randomUUID())).toMatchObject({ status: 404, body: { error: 'Event not found' } });
    expect((await journeysOf('not-a-uuid')).status).toBe(400);
    expect((await journeysOf(randomUUID(), ingestKey)).status).toBe(403);
  });
});
