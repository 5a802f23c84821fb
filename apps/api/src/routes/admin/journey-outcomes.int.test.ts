import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdoutArm } from '@waymark/journey';
import firstProject from '@waymark/journeys/first-project';
import { eventually } from '../../../../../test/eventually';
import { integrationEnv } from '../../../../../test/test-env';
import { issueApiKey, startTestApi, type TestApi } from '../../../../../test/test-api';
import type { EmulatorEmail } from '../../../../../test/email-emulator';
import { holdSharedCounters, SHARED_COUNTERS_WAIT_MS } from '../../../../../test/shared-counters-lock';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
const PEOPLE = 500;
/** the subjects of first-project-tips and first-project-nudge for a project named Atlas */
const TIPS = 'Atlas: three tips before you publish';
const NUDGE = 'Atlas is one click from published';

async function emulatorStore(): Promise<EmulatorEmail[]> {
  const response = await fetch(`${integrationEnv().SES_ENDPOINT}/store`);
  return ((await response.json()) as { emails: EmulatorEmail[] }).emails;
}

/** Runs `work` over `items`, `width` at a time (the box is shared: no burst of 500 requests). */
async function inBatches<T>(items: readonly T[], width: number, work: (item: T) => Promise<unknown>): Promise<void> {
  for (let index = 0; index < items.length; index += width) await Promise.all(items.slice(index, index + width).map(work));
}

describe('first-project: goals, holdouts and GET /v1/admin/journeys/{id}/outcomes', () => {
  // exact deltas of first-project's shared counters: no other such file enrols people meanwhile
  let releaseCounters: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    releaseCounters = await holdSharedCounters('first-project');
  }, SHARED_COUNTERS_WAIT_MS);
  afterAll(async () => releaseCounters?.());
  let api: TestApi;
  let ingestKey: string;
  const tag = randomUUID().slice(0, 8);
  const users = Array.from({ length: PEOPLE }, (_, index) => ({ userId: `fp-${tag}-${index}`, email: `fp-${tag}-${index}@waymark-test.example` }));
  const armOf = (userId: string) => holdoutArm(firstProject, userId)!.holdout;

  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    ingestKey = await issueApiKey(api, LEGACY, `fp-${tag}`, ['ingest']);
  });
  afterAll(() => api.close());

  const track = (name: string, user: { userId: string; email: string }) =>
    api.request('POST', '/v1/events', {
      token: ingestKey,
      body: { name, userId: user.userId, email: user.email, eventProperties: { projectId: `p-${user.userId}`, name: 'Atlas' } },
    });
  const statesOf = (userIds: readonly string[]) =>
    api.deps.db.selectFrom('journeyStates').selectAll().where('journeyId', '=', 'first-project').where('userId', 'in', userIds).orderBy('createdAt').execute();
  /** how many log rows of these states have this action and detail.reason */
  const logsWith = async (action: string, reason: string, stateIds: string[]) => {
    const row = await api.deps.db
      .selectFrom('journeyLogs')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('action', '=', action)
      .where(sql<string>`detail ->> 'reason'`, '=', reason)
      .where('journeyStateId', 'in', stateIds)
      .executeTakeFirstOrThrow();
    return row.n;
  };
  const outcomes = async () => {
    const response = await api.request('GET', '/v1/admin/journeys/first-project/outcomes', { token: LEGACY });
    expect(response.status).toBe(200);
    return response.body;
  };

  it('holds out about a fifth, sends the held-out nothing, counts 40 + 10 conversions exactly and ends converted runs', async () => {
    const before = await outcomes();
    await inBatches(users, 10, async (user) => expect((await track('project.created', user)).status).toBe(202));
    const userIds = users.map((user) => user.userId);
    // every run has made its first step (the tips, or its skip) and sleeps towards the nudge
    await eventually(
      async () => {
        const rows = await statesOf(userIds);
        return { entered: rows.length, asleep: rows.filter((row) => row.status === 'waiting').length };
      },
      (progress) => progress.asleep === PEOPLE,
      { timeoutMs: 300_000, intervalMs: 2_000, what: '500 first-project runs asleep after their first email' },
    );
    const states = await statesOf(userIds);
    for (const state of states) expect(state.holdout).toBe(armOf(state.userId));
    const heldOut = users.filter((user) => armOf(user.userId));
    const treated = users.filter((user) => !armOf(user.userId));
    // the share is binomial(500, 0.2): within 3 standard deviations of 100
    expect(Math.abs(heldOut.length - PEOPLE * 0.2)).toBeLessThanOrEqual(3 * Math.sqrt(PEOPLE * 0.2 * 0.8));

    const ours = new Set(users.map((user) => user.email));
    const received = await eventually(
      async () => (await emulatorStore()).filter((email) => email.destination.to.some((to) => ours.has(to))),
      (emails) => emails.length >= treated.length,
      { timeoutMs: 60_000, intervalMs: 1_000, what: 'first-project-tips for every treatment person' },
    );
    const subjectsTo = (address: string) => received.filter((email) => email.destination.to.includes(address)).map((email) => email.subject);
    for (const user of heldOut) expect(subjectsTo(user.email)).toEqual([]);
    for (const user of treated) expect(subjectsTo(user.email)).toEqual([TIPS]);
    const skips = await logsWith(
      'email_skipped',
      'holdout',
      states.filter((state) => state.holdout === true).map((state) => state.id),
    );
    expect(skips).toBe(heldOut.length);

    // 40 treatment and 10 held-out people publish
    const converting = [...treated.slice(0, 40), ...heldOut.slice(0, 10)];
    await inBatches(converting, 10, async (user) => expect((await track('project.published', user)).status).toBe(202));
    const converted = await eventually(
      () => statesOf(converting.map((user) => user.userId)),
      (rows) => rows.every((row) => row.convertedAt !== null && row.status === 'exited'),
      { timeoutMs: 30_000, what: 'the 50 conversions' },
    );
    for (const state of converted) expect(state.conversionEventId).not.toBeNull();
    const goalExits = await logsWith(
      'exited',
      'goal',
      converted.map((state) => state.id),
    );
    expect(goalExits).toBe(50);

    const after = await outcomes();
    const delta = (arm: 'treatment' | 'holdout', key: 'enrolled' | 'converted') => after.arms[arm][key] - before.arms[arm][key];
    expect([delta('treatment', 'enrolled'), delta('treatment', 'converted')]).toEqual([treated.length, 40]);
    expect([delta('holdout', 'enrolled'), delta('holdout', 'converted')]).toEqual([heldOut.length, 10]);
    expect(after.goal).toEqual({ event: 'project.published', within: '14 days' });
    if (before.arms.treatment.enrolled === 0 && before.arms.holdout.enrolled === 0) {
      expect(after.arms.treatment.conversionRate).toBeCloseTo(40 / treated.length, 10);
      expect(after.arms.holdout.conversionRate).toBeCloseTo(10 / heldOut.length, 10);
      expect(after.lift.absolute).toBeCloseTo(40 / treated.length - 10 / heldOut.length, 10);
      expect(after.lift.ci95[0]).toBeLessThan(after.lift.absolute);
      expect(after.lift.ci95[1]).toBeGreaterThan(after.lift.absolute);
      const tips = after.byStep.find((step: { step: string }) => step.step === 'first-project-tips');
      expect(tips).toMatchObject({ reached: treated.length, sent: treated.length, converted: 40 });
    }
    // the converted runs were cancelled: none of them is left to send the nudge
    expect(received.filter((email) => email.subject === NUDGE)).toEqual([]);
    const details = await api.request('GET', `/v1/admin/journeys/first-project/states/${converted[0]!.id}`, { token: LEGACY });
    expect(details.body.state).toMatchObject({ convertedAt: expect.any(String), conversionEventId: converted[0]!.conversionEventId });
    expect(details.body.logs.map((log: { action: string }) => log.action)).toContain('converted');
    // 500 runs on a shared two-core box: minutes, not the default minute
  }, 600_000);

  it('a person who enters again keeps their arm', async () => {
    const again = [...users.filter((user) => armOf(user.userId)).slice(0, 2), ...users.filter((user) => !armOf(user.userId)).slice(0, 2)];
    // their first runs ended by converting (the test above), so each enters anew
    for (const user of again) expect((await track('project.created', user)).status).toBe(202);
    const states = await eventually(
      () => statesOf(again.map((user) => user.userId)),
      (rows) => rows.length === 2 * again.length && rows.every((row) => row.status !== 'active'),
      { timeoutMs: 30_000, what: 'the second enrollments' },
    );
    for (const user of again) {
      const arms = states.filter((state) => state.userId === user.userId).map((state) => state.holdout);
      expect(arms).toEqual([armOf(user.userId), armOf(user.userId)]);
    }

    // explain and the timeline tell the arm and the conversion of a held-out person
    const person = again[0]!;
    const arm = holdoutArm(firstProject, person.userId)!;
    const contact = await api.deps.db.selectFrom('contacts').select('id').where('externalId', '=', person.userId).executeTakeFirstOrThrow();
    const explained = await api.request('GET', `/v1/admin/contacts/${contact.id}/explain?journeyId=first-project&templateKey=first-project-tips`, {
      token: LEGACY,
    });
    expect(explained.status).toBe(200);
    const [first] = explained.body.explanation.enrollments;
    expect(first.arm).toBe(`held out of first-project (bucket ${arm.bucket} of 1000 is under 200)`);
    expect(first.converted).toBe('converted on day 1 through project.published');
    expect(first.steps.map((step: { outcome: string }) => step.outcome)).toContain(
      `skipped: held out of first-project (bucket ${arm.bucket} of 1000 is under 200)`,
    );
    const timeline = await api.request('GET', `/v1/admin/contacts/${contact.id}/timeline?type=journey`, { token: LEGACY });
    const converted = timeline.body.timeline.find((entry: { data: { convertedAt: string | null } }) => entry.data.convertedAt !== null);
    expect(converted.data).toMatchObject({ journeyId: 'first-project', holdout: true, conversionEventId: expect.any(String) });
  }, 60_000);

  it('the journey detail declares the goal and the holdout', async () => {
    const detail = await api.request('GET', '/v1/admin/journeys/first-project', { token: LEGACY });
    expect(detail.body.journey).toMatchObject({
      goal: { event: 'project.published', within: '14 days', where: [], exitOnGoal: true },
      holdout: { percent: 20 },
    });
  });

  it('answers 409 for a journey without goal or holdout and 404 for an unknown one', async () => {
    const none = await api.request('GET', '/v1/admin/journeys/welcome-series/outcomes', { token: LEGACY });
    expect(none.status).toBe(409);
    expect(none.body.error).toMatch(/neither a goal nor a holdout/);
    expect((await api.request('GET', '/v1/admin/journeys/nope/outcomes', { token: LEGACY })).status).toBe(404);
    expect((await api.request('GET', '/v1/admin/journeys/first-project/outcomes?from=yesterday', { token: LEGACY })).status).toBe(400);
  });

  it('daily: per entry day and arm, people who entered and of them who converted, oldest first', async () => {
    // runs of a version of this test's own, written as the run path writes them (the counters' triggers do the rest)
    const version = `daily-${tag}`;
    const runs = [
      { day: '2026-03-01', holdout: false, converted: true },
      { day: '2026-03-01', holdout: false, converted: false },
      { day: '2026-03-01', holdout: true, converted: false },
      { day: '2026-03-03', holdout: false, converted: true },
      { day: '2026-03-03', holdout: true, converted: true },
    ];
    const ids = await Promise.all(
      runs.map(async (run, index) => {
        const { rows } = await sql<{ id: string }>`
          insert into journey_states (journey_id, user_id, user_email, status, workflow_id, journey_version, holdout, created_at)
          values ('first-project', ${`daily-${tag}-${index}`}, ${`daily-${tag}-${index}@waymark-test.example`}, 'waiting',
                  ${`daily-${tag}-${index}`}, ${version}, ${run.holdout}, ${`${run.day}T10:00:00Z`}::timestamptz)
          returning id`.execute(api.deps.db);
        return rows[0]!.id;
      }),
    );
    const converting = ids.filter((_, index) => runs[index]!.converted);
    // a conversion days later still counts on its person's entry day
    await sql`update journey_states set converted_at = '2026-03-09T00:00:00Z' where id = any(${converting}::uuid[])`.execute(api.deps.db);
    const response = await api.request('GET', `/v1/admin/journeys/first-project/outcomes?version=${version}`, { token: LEGACY });
    expect(response.status).toBe(200);
    expect(response.body.daily).toEqual([
      { day: '2026-03-01', treatment: { enrolled: 2, converted: 1 }, holdout: { enrolled: 1, converted: 0 } },
      { day: '2026-03-03', treatment: { enrolled: 1, converted: 1 }, holdout: { enrolled: 1, converted: 1 } },
    ]);
    const ranged = await api.request('GET', `/v1/admin/journeys/first-project/outcomes?version=${version}&from=2026-03-02T00:00:00Z`, { token: LEGACY });
    expect(ranged.body.daily.map((entry: { day: string }) => entry.day)).toEqual(['2026-03-03']);
  });

  it('needs the read scope: 401 without a key, 403 for an ingest key', async () => {
    expect((await api.request('GET', '/v1/admin/journeys/first-project/outcomes')).status).toBe(401);
    expect((await api.request('GET', '/v1/admin/journeys/first-project/outcomes', { token: ingestKey })).status).toBe(403);
  });
});
