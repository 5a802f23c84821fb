import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../../test/eventually';
import { journeyStatesOf } from '../../../../test/journey-states';
import { issueApiKey, startTestApi, type TestApi } from '../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

describe('exit on event applies at once (docs/journeys.md)', () => {
  let api: TestApi;
  let ingestKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    ingestKey = await issueApiKey(api, LEGACY, 'producer', ['ingest']);
  });
  afterAll(() => api.close());

  it('an exit event during a 2-day sleep cancels the timer: the run is closed in Temporal at once and sends nothing more', async () => {
    const userId = `u-${randomUUID()}`;
    await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'user.signed_up', userId, email: `${userId}@example.com` } });
    const [state] = await eventually(
      () => journeyStatesOf(api.deps.db, userId, 'welcome-series'),
      (rows) => rows[0]?.status === 'waiting' && rows[0].currentNodeId === 'sleep:2 days',
    );
    const handle = api.deps.temporal.client.workflow.getHandle(state!.workflowId);

    const exitedAt = Date.now();
    const exit = await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'user.deleted', userId } });
    expect(exit.body.exits).toEqual([{ journeyId: 'welcome-series', stateId: state!.id, exited: true }]);
    const closed = await eventually(
      () => handle.describe(),
      (description) => description.status.name !== 'RUNNING',
      { timeoutMs: 15_000, intervalMs: 20, what: 'the run to close after the exit event' },
    );
    expect(closed.status.name).toBe('CANCELLED');
    // Temporal's own close time, not the poll: the cancel reaches the run in the exit request (well
    // under a second on an idle machine, docs/journeys.md); the bound here leaves room for a loaded CI box
    expect(closed.closeTime!.getTime() - exitedAt).toBeLessThan(5_000);

    // the 2-day timer was cancelled, not left to fire: nothing can run after it
    const events = (await handle.fetchHistory()).events ?? [];
    const timerStarted = events.filter((event) => event.timerStartedEventAttributes != null);
    const timerCancelled = events.filter((event) => event.timerCanceledEventAttributes != null);
    expect(timerStarted).toHaveLength(1);
    expect(timerCancelled).toHaveLength(1);
    expect(events.some((event) => event.timerFiredEventAttributes != null)).toBe(false);

    const sends = await api.deps.db.selectFrom('emailSends').select('templateKey').where('journeyStateId', '=', state!.id).execute();
    expect(sends).toEqual([{ templateKey: 'welcome' }]);
    const row = await api.deps.db.selectFrom('journeyStates').select(['status', 'exitedAt']).where('id', '=', state!.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('exited');
    expect(row.exitedAt).not.toBeNull();
  });
});
