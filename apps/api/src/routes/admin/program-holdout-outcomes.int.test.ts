import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@waymark/core/db/database';
import { holdoutArm, programHoldoutArm, type DeliveryPolicy } from '@waymark/journey';
import firstProject from '@waymark/journeys/first-project';
import { eventually } from '../../../../../test/eventually';
import { startInProcessWorker } from '../../../../../test/in-process-worker';
import { releaseTaskQueue } from '../../../../../test/task-queue-cleanup';
import { issueApiKey, startTestApi, type TestApi } from '../../../../../test/test-api';
import { holdSharedCounters, SHARED_COUNTERS_WAIT_MS } from '../../../../../test/shared-counters-lock';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/**
 * GET /v1/admin/delivery-policy/holdout/outcomes on the real stack: a worker of this file's own
 * task queue runs first-project (goal `project.published`, its own 20 % holdout, category
 * `journey`) under a policy holding 30 % of everyone out of `journey` email. People are chosen by
 * both hashes, so each combination of arms is there, and the counts are known exactly: only this
 * file's worker records a program arm (every other worker's policy holds nobody out).
 */
describe('the program holdout measured (real stack)', () => {
  // exact deltas of first-project's shared counters: no other such file enrols people meanwhile
  let releaseCounters: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    releaseCounters = await holdSharedCounters('first-project');
  }, SHARED_COUNTERS_WAIT_MS);
  afterAll(async () => releaseCounters?.());
  const taskQueue = `program-outcomes-${randomUUID()}`;
  const policy: DeliveryPolicy = { caps: [], exempt: [], holdout: { percent: 30, categories: ['journey'] } };
  let api: TestApi;
  let ingestKey: string;
  let worker: { db: Db; stop: () => Promise<void> };

  beforeAll(async () => {
    worker = await startInProcessWorker({ taskQueue, name: 'program-outcomes-worker', deliveryPolicy: policy });
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, TEMPORAL_TASK_QUEUE: taskQueue }, { deliveryPolicy: policy });
    ingestKey = await issueApiKey(api, LEGACY, 'program-outcomes-producer', ['ingest']);
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    if (api !== undefined) await releaseTaskQueue(api.deps.temporal.client, taskQueue);
    await api?.close();
  }, 60_000);

  const programHeld = (userId: string) => programHoldoutArm(policy, 'journey', userId)!.holdout;
  const journeyHeld = (userId: string) => holdoutArm(firstProject, userId)!.holdout;
  /** `count` fresh user ids in the given program and journey arms */
  function people(count: number, program: boolean, journey: boolean): { userId: string; email: string }[] {
    const found: { userId: string; email: string }[] = [];
    while (found.length < count) {
      const userId = `pho-${randomUUID()}`;
      if (programHeld(userId) === program && journeyHeld(userId) === journey) found.push({ userId, email: `${userId}@waymark-test.example` });
    }
    return found;
  }
  const track = (name: string, user: { userId: string; email: string }) =>
    api.request('POST', '/v1/events', {
      token: ingestKey,
      body: { name, userId: user.userId, email: user.email, eventProperties: { projectId: `p-${user.userId}`, name: 'Atlas' } },
    });
  const statesOf = (userIds: readonly string[]) =>
    api.deps.db.selectFrom('journeyStates').selectAll().where('journeyId', '=', 'first-project').where('userId', 'in', userIds).execute();
  const read = async (query = '') => {
    const response = await api.request('GET', `/v1/admin/delivery-policy/holdout/outcomes${query}`, { token: LEGACY });
    expect(response.status, response.text).toBe(200);
    return response.body;
  };
  const firstProjectOf = (body: { journeys: { journeyId: string }[] }) => body.journeys.find((journey) => journey.journeyId === 'first-project') as any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON under test

  it('counts the program-held against the emailed per arm exactly, a journey-held person in neither and nobody twice', async () => {
    const bothHeld = people(2, true, true);
    const programOnly = people(3, true, false);
    const journeyOnly = people(2, false, true);
    const neither = people(6, false, false);
    const everyone = [...bothHeld, ...programOnly, ...journeyOnly, ...neither];
    // entries from yesterday on: this test's, not the studio test's counters of a past day
    const recent = `?from=${new Date(Date.now() - 86_400_000).toISOString()}`;
    const before = firstProjectOf(await read(recent));

    for (const user of everyone) expect((await track('project.created', user)).status).toBe(202);
    // every run has made its first step (the tips, or their skip) and sleeps towards the nudge
    const states = await eventually(
      () => statesOf(everyone.map((user) => user.userId)),
      (rows) => rows.length === everyone.length && rows.every((row) => row.status === 'waiting'),
      { timeoutMs: 90_000, intervalMs: 1_000, what: 'the first-project runs asleep after their first step' },
    );
    // both arms are recorded at entry, each by its own hash
    for (const state of states) {
      expect(state.programHoldout).toBe(programHeld(state.userId));
      expect(state.holdout).toBe(journeyHeld(state.userId));
    }

    const converting = [bothHeld[0]!, programOnly[0]!, journeyOnly[0]!, ...neither.slice(0, 4)];
    for (const user of converting) expect((await track('project.published', user)).status).toBe(202);
    await eventually(
      () => statesOf(converting.map((user) => user.userId)),
      (rows) => rows.length === converting.length && rows.every((row) => row.convertedAt !== null),
      { timeoutMs: 30_000, what: 'the conversions' },
    );

    const after = firstProjectOf(await read(recent));
    const delta = (arm: 'treatment' | 'holdout') => ({
      enrolled: after.arms[arm].enrolled - before.arms[arm].enrolled,
      converted: after.arms[arm].converted - before.arms[arm].converted,
    });
    // held out by the program: the 5 it holds (2 of them in the journey's holdout too), 2 converted
    expect(delta('holdout')).toEqual({ enrolled: 5, converted: 2 });
    // emailed: the 6 in neither holdout, 4 converted; the program-held in the journey's
    // treatment are not counted here too, and the journey-held alone are in neither arm
    expect(delta('treatment')).toEqual({ enrolled: 6, converted: 4 });
    expect(after.goal).toEqual({ event: 'project.published', within: '14 days' });
    if (before.arms.treatment.enrolled === 0 && before.arms.holdout.enrolled === 0) {
      expect(after.arms.treatment).toEqual({ enrolled: 6, converted: 4, conversionRate: 4 / 6, value: 0, valuePerPerson: 0 });
      expect(after.arms.holdout).toEqual({ enrolled: 5, converted: 2, conversionRate: 2 / 5, value: 0, valuePerPerson: 0 });
      expect(after.lift.absolute).toBeCloseTo(4 / 6 - 2 / 5, 10);
      expect(after.lift.ci95[0]).toBeLessThan(after.lift.absolute);
      expect(after.lift.ci95[1]).toBeGreaterThan(after.lift.absolute);
      expect(after.lift.method).toMatch(/mSPRT/);
    }
  }, 180_000);

  it('names the policy, lists only journeys with a goal in a held category, and reads entry days by from/to', async () => {
    const body = await read();
    expect(body).toMatchObject({ percent: 30, categories: ['journey'] });
    // first-project is the shipped journey with a goal; welcome-series has none
    expect(body.journeys.map((journey: { journeyId: string }) => journey.journeyId)).toContain('first-project');
    expect(body.journeys.map((journey: { journeyId: string }) => journey.journeyId)).not.toContain('welcome-series');
    const long = firstProjectOf(await read('?from=2001-01-01T00:00:00Z&to=2001-01-31T00:00:00Z'));
    expect(long.arms).toEqual({
      treatment: { enrolled: 0, converted: 0, conversionRate: 0, value: 0, valuePerPerson: 0 },
      holdout: { enrolled: 0, converted: 0, conversionRate: 0, value: 0, valuePerPerson: 0 },
    });
    expect(long.lift).toBeNull();
    const bad = await api.request('GET', '/v1/admin/delivery-policy/holdout/outcomes?from=yesterday', { token: LEGACY });
    expect(bad.status).toBe(400);
    expect(typeof bad.body.error).toBe('string');
  });
});
