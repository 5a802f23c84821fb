import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLAY_JOB_MAX_IDS, REPLAY_JOB_MAX_LIMIT } from '@waymark/core/replays/replay-jobs';
import { eventually } from '../../../../test/eventually';
import { startTestApi, type TestApi } from '../../../../test/test-api';
import { integrationEnv } from '../../../../test/test-env';
import { exited, startWorkerProcess } from '../../../../test/worker-process';
import { releaseTaskQueue } from '../../../../test/task-queue-cleanup';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/** Issue 10: replays beyond the synchronous maximum run as a durable background job. */
describe('replay jobs (POST/GET /v1/admin/events/replay-jobs)', () => {
  let api: TestApi;
  const queue = `replay-jobs-${randomUUID()}`;
  // OUTBOUND_DISPATCH off: outbox rows of other tests must not start delivery runs on this throwaway queue;
  // the catalog rejects, so an event that breaks it is a failed replay (quarantine would store it again)
  const env = { ...integrationEnv(), TEMPORAL_TASK_QUEUE: queue, LOG_LEVEL: 'warn', OUTBOUND_DISPATCH: 'false', EVENT_CATALOG_MODE: 'reject' };
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, TEMPORAL_TASK_QUEUE: queue, EVENT_CATALOG_MODE: 'reject' });
    workers.push(startWorkerProcess(env));
  });
  afterAll(async () => {
    for (const worker of workers) {
      worker.kill('SIGTERM');
      await exited(worker);
    }
    // the journeys the replays started run on this throwaway queue: end them with it
    await releaseTaskQueue(api.deps.temporal.client, queue);
    await api.close();
  });

  const submit = (body: unknown) => api.request('POST', '/v1/admin/events/replay-jobs', { token: LEGACY, body });
  const progress = async (id: string) => (await api.request('GET', `/v1/admin/events/replay-jobs/${id}`, { token: LEGACY })).body.job;
  const finished = (id: string, timeoutMs = 120_000) =>
    eventually(
      () => progress(id),
      (job) => job.status === 'completed' || job.status === 'failed',
      { timeoutMs, intervalMs: 200, what: `replay job ${id} to finish` },
    );

  /** Events stored in a window of their own (a random minute of 2021), so a filter matches only them. */
  async function seed(count: number, event: (i: number) => { userId: string; userEmail?: string; event: string; properties: object }) {
    const base = Date.UTC(2021, 0, 1) + Math.floor(Math.random() * 300 * 24 * 60) * 60_000;
    const rows = Array.from({ length: count }, (_, i) => ({
      id: randomUUID(),
      ...event(i),
      properties: JSON.stringify(event(i).properties),
      source: 'api',
      occurredAt: new Date(base + i),
    }));
    for (let i = 0; i < rows.length; i += 1000)
      await api.deps.db
        .insertInto('events')
        .values(rows.slice(i, i + 1000))
        .execute();
    return { rows, from: new Date(base).toISOString(), to: new Date(base + count).toISOString() };
  }

  it('400 for a body without a selection or above the documented maxima; 404 for an unknown job', async () => {
    expect(await submit({})).toMatchObject({ status: 400, body: { error: expect.any(String) } });
    expect(await submit({ filter: { event: 'x' }, limit: REPLAY_JOB_MAX_LIMIT + 1 })).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('limit') },
    });
    const ids = Array.from({ length: REPLAY_JOB_MAX_IDS + 1 }, () => randomUUID());
    expect(await submit({ eventIds: ids })).toMatchObject({ status: 400, body: { error: expect.stringContaining('eventIds') } });
    expect(await submit({ eventIds: ['not-a-uuid'] })).toMatchObject({ status: 400 });
    expect(await api.request('GET', `/v1/admin/events/replay-jobs/${randomUUID()}`, { token: LEGACY })).toMatchObject({
      status: 404,
      body: { error: 'Replay job not found' },
    });
    expect(await api.request('GET', '/v1/admin/events/replay-jobs/nope', { token: LEGACY })).toMatchObject({ status: 400 });
  });

  it('replays more than the synchronous maximum: right counts, each journey started once, audited', async () => {
    const tag = randomUUID().slice(0, 8);
    const users = 120;
    const { rows, from, to } = await seed(users + 1, (i) =>
      // the last one breaks the event catalog (plan is an enum): it fails, the others go on
      i === users
        ? { userId: `rj-${tag}-bad`, event: 'user.signed_up', properties: { plan: 'gold' } }
        : { userId: `rj-${tag}-${i}`, userEmail: `rj-${tag}-${i}@example.com`, event: 'user.signed_up', properties: { firstName: `U${i}` } },
    );
    const missing = randomUUID();
    const submitted = await submit({ filter: { event: 'user.signed_up', from, to } });
    expect(submitted).toMatchObject({ status: 202, body: { job: { status: 'pending', processed: 0, failed: 0 } } });
    const jobId: string = submitted.body.job.id;

    const job = await finished(jobId);
    expect(job).toMatchObject({ status: 'completed', matched: users + 1, processed: users, failed: 1 });
    expect(job.errors).toEqual([{ eventId: rows[users]!.id, error: expect.stringContaining('plan') }]);

    const replayed = await api.deps.db.selectFrom('events').select('userId').where('userId', 'like', `rj-${tag}-%`).where('source', '=', 'replay').execute();
    expect(replayed).toHaveLength(users);
    const states = await eventually(
      () => api.deps.db.selectFrom('journeyStates').select('userId').where('journeyId', '=', 'welcome-series').where('userId', 'like', `rj-${tag}-%`).execute(),
      (found) => found.length >= users,
      { timeoutMs: 60_000, what: 'a welcome-series run per replayed user' },
    );
    expect(new Set(states.map((state) => state.userId)).size).toBe(users);
    expect(states).toHaveLength(users);

    const audit = await api.deps.db.selectFrom('auditLogs').select(['action', 'resource']).where('resourceId', '=', jobId).execute();
    expect(audit).toEqual([{ action: 'replay', resource: 'event' }]);

    // ids alone: one that does not exist is reported, never silently dropped
    const byIds = await submit({ eventIds: [rows[0]!.id, missing] });
    expect(byIds.status).toBe(202);
    expect(await finished(byIds.body.job.id)).toMatchObject({
      status: 'completed',
      matched: 1,
      processed: 1,
      failed: 0,
      errors: [{ eventId: missing, error: 'Event not found' }],
    });
  }, 200_000);

  it('SIGKILL mid-replay, restart: completes with every event replayed exactly once', async () => {
    const tag = randomUUID().slice(0, 8);
    const total = 3_000;
    const { from, to } = await seed(total, (i) => ({ userId: `rk-${tag}-${i % 300}`, event: 'replay.kill-test', properties: { i } }));
    const submitted = await submit({ filter: { event: 'replay.kill-test', from, to } });
    expect(submitted.status).toBe(202);
    const jobId: string = submitted.body.job.id;

    const midway = await eventually(
      () => progress(jobId),
      (job) => job.processed >= 400,
      { timeoutMs: 120_000, intervalMs: 100, what: 'the replay to pass 400 events' },
    );
    const first = workers.pop()!;
    first.kill('SIGKILL');
    await exited(first);
    expect(midway.status).toBe('processing');
    expect(midway.processed).toBeLessThan(total);

    workers.push(startWorkerProcess(env));
    const job = await finished(jobId, 240_000);
    expect(job).toMatchObject({ status: 'completed', matched: total, processed: total, failed: 0, errors: [] });
    const replayed = await api.deps.db
      .selectFrom('events')
      .select('properties')
      .where('userId', 'like', `rk-${tag}-%`)
      .where('source', '=', 'replay')
      .execute();
    expect(replayed).toHaveLength(total);
    expect(new Set(replayed.map((row) => (row.properties as { i: number }).i)).size).toBe(total);
  }, 400_000);
});
