import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../../../test/eventually';
import { journeyStatesOf } from '../../../../../test/journey-states';
import { issueApiKey, startTestApi, type TestApi } from '../../../../../test/test-api';
import { journeys } from '@waymark/journeys';
import { deploymentJourneyVersions } from '@waymark/runtime/runtime';
import { JOURNEY_VERSION_ATTRIBUTE } from '@waymark/temporal/search-attributes';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

describe('/v1/admin/journeys and /v1/admin/events', () => {
  let api: TestApi;
  let journeyAdmin: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    journeyAdmin = await issueApiKey(api, LEGACY, 'ja', ['journey-admin']);
  });
  afterAll(async () => {
    await api.deps.db.deleteFrom('journeyOverrides').execute();
    await api.close();
  });

  const statesOf = (userId: string, journeyId: string) => journeyStatesOf(api.deps.db, userId, journeyId);
  const enroll = (journeyId: string, userId: string, properties?: Record<string, unknown>) =>
    api.request('POST', `/v1/admin/journeys/${journeyId}/enroll`, { token: journeyAdmin, body: { userId, userEmail: `${userId}@example.com`, properties } });

  it('lists journeys with counts, filters by enabled, and shows the detail', async () => {
    const list = await api.request('GET', '/v1/admin/journeys', { token: LEGACY });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: journeys.length, limit: 50, offset: 0 });
    const trial = list.body.journeys.find((journey: { id: string }) => journey.id === 'trial-conversion');
    expect(trial).toMatchObject({ name: 'Trial conversion', enabled: true, entryLimit: 'once', trigger: { event: 'trial.started' } });
    expect(Object.keys(trial.counts).sort()).toEqual(['active', 'completed', 'exited', 'failed', 'waiting']);
    expect(trial).not.toHaveProperty('exitOn');
    const detail = await api.request('GET', '/v1/admin/journeys/trial-conversion', { token: LEGACY });
    expect(detail.body.journey).toMatchObject({
      exitOn: [{ event: 'subscription.started' }],
      suppress: { hours: 24 },
      quietHours: null,
      recentStates: expect.any(Array),
    });
    expect(detail.body.journey).not.toHaveProperty('description');
    const page = await api.request('GET', '/v1/admin/journeys?limit=1&offset=1', { token: LEGACY });
    expect(page.body.journeys).toHaveLength(1);
  });

  it('PATCH disables a journey (persisted); a disabled journey starts nothing; re-enabling works', async () => {
    const patched = await api.request('PATCH', '/v1/admin/journeys/re-engagement', { token: journeyAdmin, body: { enabled: false } });
    expect(patched.status).toBe(200);
    expect(patched.body.journey).toMatchObject({ id: 're-engagement', name: 'Re-engagement', enabled: false });
    expect(typeof patched.body.journey.updatedAt).toBe('string');
    const disabled = await api.request('GET', '/v1/admin/journeys?enabled=false', { token: LEGACY });
    // contains, not equals: another file may hold another journey off for a moment
    expect(disabled.body.journeys.map((journey: { id: string }) => journey.id)).toContain('re-engagement');

    const userId = `u-${randomUUID()}`;
    expect((await enroll('re-engagement', userId, { daysInactive: 30 })).status).toBe(202);
    // enabled again at once: the override is shared by every test file running beside this one, and
    // the 202 came after the commit that decided whether the event starts anything
    await api.request('PATCH', '/v1/admin/journeys/re-engagement', { token: journeyAdmin, body: { enabled: true } });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await statesOf(userId, 're-engagement')).toHaveLength(0);

    expect((await enroll('re-engagement', userId, { daysInactive: 30 })).body).toEqual({ enrolled: true, event: 'user.inactive', userId });
    expect(
      await eventually(
        () => statesOf(userId, 're-engagement'),
        (rows) => rows.length > 0,
      ),
    ).toHaveLength(1);
    const audit = await api.request('GET', '/v1/admin/audit-logs?resource=journey&action=update', { token: LEGACY });
    // this journey's newest entry: another file beside this one may toggle another journey meanwhile
    expect(audit.body.logs.find((log: { resourceId: string }) => log.resourceId === 're-engagement')).toMatchObject({ detail: { enabled: true } });
  });

  it('lists states with filters, shows one with logs, cancels it (409 the second time)', async () => {
    const userId = `u-${randomUUID()}`;
    await enroll('re-engagement', userId, { daysInactive: 20 });
    const [state] = await eventually(
      () => statesOf(userId, 're-engagement'),
      (rows) => rows[0]?.status === 'waiting',
    );
    const listed = await api.request('GET', `/v1/admin/journeys/re-engagement/states?userId=${userId}&status=waiting`, { token: LEGACY });
    expect(listed.body).toMatchObject({ total: 1, states: [{ id: state!.id, status: 'waiting', currentNodeId: 'wait:session.started', entryCount: 1 }] });
    // the run carries this deployment's version: on its state, as a search attribute, in the journey's running versions
    const version = deploymentJourneyVersions().get('re-engagement');
    expect(version).toMatch(/^[0-9a-f]{6}$/);
    expect(listed.body.states[0].journeyVersion).toBe(version);
    const described = await api.deps.temporal.client.workflow.getHandle(state!.workflowId).describe();
    expect(described.typedSearchAttributes.get(JOURNEY_VERSION_ATTRIBUTE)).toBe(version);
    const detail = await api.request('GET', '/v1/admin/journeys/re-engagement', { token: LEGACY });
    expect(detail.body.journey.version).toBe(version);
    const running = detail.body.journey.runningVersions.find((entry: { version: string | null }) => entry.version === version);
    expect(running.steps).toContainEqual(expect.objectContaining({ nodeId: 'wait:session.started', status: 'waiting' }));
    const none = await api.request('GET', `/v1/admin/journeys/re-engagement/states?userId=${userId}&status=completed`, { token: LEGACY });
    expect(none.body.total).toBe(0);

    const one = await api.request('GET', `/v1/admin/journeys/re-engagement/states/${state!.id}`, { token: LEGACY });
    expect(one.body.state.id).toBe(state!.id);
    expect(one.body.logs.map((log: { action: string }) => log.action)).toEqual(['entered', 'email_sent', 'waiting']);
    const logs = await api.request('GET', `/v1/admin/journey-logs/${state!.id}`, { token: LEGACY });
    expect(logs.body.logs).toEqual(one.body.logs);
    expect((await api.request('GET', `/v1/admin/journeys/trial-conversion/states/${state!.id}`, { token: LEGACY })).status).toBe(404);

    const cancelled = await api.request('DELETE', `/v1/admin/journeys/re-engagement/states/${state!.id}`, { token: journeyAdmin });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ state: { id: state!.id, status: 'exited' }, workflowCancelled: true });
    const again = await api.request('DELETE', `/v1/admin/journeys/re-engagement/states/${state!.id}`, { token: journeyAdmin });
    expect(again).toMatchObject({ status: 409, body: { error: "Cannot cancel journey in 'exited' status" } });
    const run = await eventually(
      () => api.deps.temporal.client.workflow.getHandle(state!.workflowId).describe(),
      (d) => d.status.name === 'CANCELLED',
    );
    expect(run.status.name).toBe('CANCELLED');
    const final = await api.request('GET', `/v1/admin/journey-logs/${state!.id}`, { token: LEGACY });
    expect(final.body.state.status).toBe('exited');
    expect(final.body.logs.at(-1)).toMatchObject({ action: 'exited', detail: { reason: 'cancelled' } });
  });

  it('batch enroll counts guard rejections as skipped', async () => {
    const fresh = `u-${randomUUID()}`;
    const unsubscribed = `u-${randomUUID()}`;
    const enrolledBefore = `u-${randomUUID()}`;
    await api.deps.db
      .insertInto('emailPreferences')
      .values({ userId: unsubscribed, email: `${unsubscribed}@example.com`, unsubscribedAll: true, categories: '{}' })
      .execute();
    await enroll('trial-conversion', enrolledBefore, { plan: 'pro' });
    await eventually(
      () => statesOf(enrolledBefore, 'trial-conversion'),
      (rows) => rows.length > 0,
    );
    const user = (userId: string, plan = 'pro') => ({ userId, userEmail: `${userId}@example.com`, properties: { plan } });
    const wrongPlan = `u-${randomUUID()}`;
    const response = await api.request('POST', '/v1/admin/journeys/trial-conversion/enroll/batch', {
      token: LEGACY,
      body: { users: [user(fresh), user(unsubscribed), user(enrolledBefore), user(wrongPlan, 'free')] },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      enrolled: 1,
      skipped: 3,
      results: [
        { userId: fresh, enrolled: true },
        { userId: unsubscribed, enrolled: false },
        { userId: enrolledBefore, enrolled: false },
        { userId: wrongPlan, enrolled: false },
      ],
    });
    expect(
      await eventually(
        () => statesOf(fresh, 'trial-conversion'),
        (rows) => rows.length > 0,
      ),
    ).toHaveLength(1);
  });

  it('replays events through the pipeline (full-admin) and lists/gets events', async () => {
    const userId = `u-${randomUUID()}`;
    const ingest = await api.request('POST', '/v1/events', { token: LEGACY, body: { name: 'custom.thing', userId, eventProperties: { n: 1 } } });
    expect(ingest.status).toBe(202);
    const listed = await api.request('GET', `/v1/admin/events?userId=${userId}&event=custom.thing`, { token: LEGACY });
    expect(listed.body).toMatchObject({ total: 1, limit: 50, offset: 0, events: [{ userId, event: 'custom.thing', properties: { n: 1 } }] });
    const id = listed.body.events[0].id;
    expect((await api.request('GET', `/v1/admin/events/${id}`, { token: LEGACY })).body.event).toMatchObject({ id, occurredAt: expect.any(String) });
    const replay = await api.request('POST', '/v1/admin/events/replay', { token: LEGACY, body: { eventIds: [id, randomUUID()] } });
    expect(replay.body.replayed).toBe(1);
    expect(replay.body.errors).toEqual([{ eventId: expect.any(String), error: 'Event not found' }]);
    const byFilter = await api.request('POST', '/v1/admin/events/replay', { token: LEGACY, body: { filter: { userId, event: 'custom.thing' }, limit: 1 } });
    expect(byFilter.body).toEqual({ replayed: 1, errors: [] });
    const after = await api.request('GET', `/v1/admin/events?userId=${userId}`, { token: LEGACY });
    expect(after.body.total).toBe(3);
    const future = await api.request('GET', `/v1/admin/events?userId=${userId}&from=2999-01-01T00:00:00Z`, { token: LEGACY });
    expect(future.body.total).toBe(0);
  });

  it('replayed trigger events start runs again', async () => {
    const userId = `u-${randomUUID()}`;
    await enroll('re-engagement', userId, { daysInactive: 15 });
    const [state] = await eventually(
      () => statesOf(userId, 're-engagement'),
      (rows) => rows[0]?.status === 'waiting',
    );
    await api.request('DELETE', `/v1/admin/journeys/re-engagement/states/${state!.id}`, { token: journeyAdmin });
    const replay = await api.request('POST', '/v1/admin/events/replay', { token: LEGACY, body: { filter: { userId, event: 'user.inactive' } } });
    expect(replay.body.replayed).toBe(1);
    const states = await eventually(
      () => statesOf(userId, 're-engagement'),
      (rows) => rows.length === 2,
    );
    expect(states.map((row) => row.entryCount).sort()).toEqual([1, 2]);
  });

  it.each([
    ['GET', '/v1/admin/journeys/nope'],
    ['PATCH', '/v1/admin/journeys/nope'],
    ['GET', '/v1/admin/journeys/nope/states'],
    ['GET', `/v1/admin/journeys/welcome-series/states/${randomUUID()}`],
    ['DELETE', `/v1/admin/journeys/welcome-series/states/${randomUUID()}`],
    ['POST', '/v1/admin/journeys/nope/enroll'],
    ['POST', '/v1/admin/journeys/nope/enroll/batch'],
    ['GET', `/v1/admin/journey-logs/${randomUUID()}`],
    ['GET', `/v1/admin/events/${randomUUID()}`],
  ])('%s %s → 404', async (method, path) => {
    const body =
      method === 'PATCH'
        ? { enabled: true }
        : path.endsWith('/batch')
          ? { users: [{ userId: 'a', userEmail: 'a@example.com' }] }
          : method === 'POST'
            ? { userId: 'a', userEmail: 'a@example.com' }
            : undefined;
    const response = await api.request(method, path, { token: LEGACY, body });
    expect(response.status).toBe(404);
    expect(typeof response.body.error).toBe('string');
  });

  it.each([
    ['GET', '/v1/admin/journeys?limit=0', undefined],
    ['GET', '/v1/admin/journeys?limit=101', undefined],
    ['GET', '/v1/admin/journeys?offset=-1', undefined],
    ['GET', '/v1/admin/journeys?enabled=maybe', undefined],
    ['GET', '/v1/admin/journeys/welcome-series/states?status=sleeping', undefined],
    ['GET', '/v1/admin/journeys/welcome-series/states/not-a-uuid', undefined],
    ['PATCH', '/v1/admin/journeys/welcome-series', {}],
    ['PATCH', '/v1/admin/journeys/welcome-series', { enabled: 'yes' }],
    ['POST', '/v1/admin/journeys/welcome-series/enroll', { userId: 'a' }],
    ['POST', '/v1/admin/journeys/welcome-series/enroll', { userId: 'a', userEmail: 'nope' }],
    ['POST', '/v1/admin/journeys/welcome-series/enroll/batch', { users: [] }],
    [
      'POST',
      '/v1/admin/journeys/welcome-series/enroll/batch',
      { users: Array.from({ length: 501 }, (_, i) => ({ userId: `u${i}`, userEmail: `u${i}@example.com` })) },
    ],
    ['GET', '/v1/admin/events?from=yesterday', undefined],
    ['GET', '/v1/admin/events?limit=101', undefined],
    ['GET', '/v1/admin/events/not-a-uuid', undefined],
    ['POST', '/v1/admin/events/replay', {}],
    ['POST', '/v1/admin/events/replay', { eventIds: ['x'] }],
    ['POST', '/v1/admin/events/replay', { filter: { from: 'soon' } }],
  ])('%s %s → 400', async (method, path, body) => {
    const response = await api.request(method, path, { token: LEGACY, body });
    expect(response.status).toBe(400);
    expect(typeof response.body.error).toBe('string');
  });

  it('a single enrollment is refused without a credential (401) and to a read or ingest key (403)', async () => {
    const path = '/v1/admin/journeys/welcome-series/enroll';
    const body = { userId: `refused-${randomUUID()}`, userEmail: 'refused@example.com' };
    expect((await api.request('POST', path, { body })).status).toBe(401);
    for (const scope of ['read', 'ingest'] as const) {
      const token = await issueApiKey(api, LEGACY, `enroll-${scope}`, [scope]);
      expect(await api.request('POST', path, { token, body }), scope).toMatchObject({ status: 403, body: { error: 'Insufficient scope' } });
    }
    expect(await statesOf(body.userId, 'welcome-series')).toEqual([]);
  });

  it.each([
    ['POST', '/v1/admin/journeys/welcome-series/enroll/batch', { users: [{ userId: 'a', userEmail: 'a@example.com' }] }],
    ['POST', '/v1/admin/events/replay', { eventIds: [randomUUID()] }],
  ])('journey-admin on full-admin route %s %s → 403', async (method, path, body) => {
    const response = await api.request(method, path, { token: journeyAdmin, body });
    expect(response).toMatchObject({ status: 403, body: { error: 'Insufficient scope' } });
  });
});
