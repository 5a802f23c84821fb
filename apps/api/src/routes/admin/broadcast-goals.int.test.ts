import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdoutArm } from '@waymark/journey';
import { createEffectDispatcher } from '@waymark/core/events/effect-dispatcher';
import { ingestEvents } from '@waymark/core/events/ingest-batch';
import { createLogger } from '@waymark/core/logging/logger';
import type { Db } from '@waymark/core/db/database';
import { emailsTo, emailsToAny } from '../../../../../test/email-emulator';
import { eventually } from '../../../../../test/eventually';
import { seedList } from '../../../../../test/seed-list';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
const AUDIENCE = 200;
const HOLDOUT_PERCENT = 20;

interface GoalArm {
  enrolled: number;
  converted: number;
  conversionRate: number;
  value: number;
  valuePerPerson: number;
}

interface DayArm {
  enrolled: number;
  converted: number;
}

interface GoalDay {
  day: string;
  treatment: DayArm;
  holdout: DayArm | null;
}

interface GoalStats {
  goal: { event: string; within: string };
  arms: { treatment: GoalArm; holdout: GoalArm | null };
  lift: { absolute: number; relative: number | null; ci95: [number, number]; method: string } | null;
  daily: GoalDay[];
}

const DAY_MS = 86_400_000;
const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/**
 * `stats.goal.daily` counted from scratch from the broadcast's recipients: each exposed one on the
 * UTC day of their exposure and, once converted, on the day of their conversion, in their arm.
 */
async function dailyFromScratch(db: Db, broadcastId: string): Promise<GoalDay[]> {
  const rows = await db
    .selectFrom('broadcastRecipients')
    .select(['reason', 'exposedAt', 'convertedAt'])
    .where('broadcastId', '=', broadcastId)
    .where('exposedAt', 'is not', null)
    .execute();
  const days = new Map<string, { day: string; treatment: DayArm; holdout: DayArm }>();
  const arm = (at: Date, holdout: boolean) => {
    const day = days.get(utcDay(at)) ?? { day: utcDay(at), treatment: { enrolled: 0, converted: 0 }, holdout: { enrolled: 0, converted: 0 } };
    days.set(day.day, day);
    return holdout ? day.holdout : day.treatment;
  };
  for (const row of rows) {
    arm(row.exposedAt!, row.reason === 'holdout').enrolled += 1;
    if (row.convertedAt !== null) arm(row.convertedAt, row.reason === 'holdout').converted += 1;
  }
  return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
}

/**
 * A broadcast's goal and holdout (docs/broadcasts.md, "Goals and holdouts") over the real api,
 * PostgreSQL, the integration setup's Temporal worker and the SES emulator: the held-out share, no
 * email to a held-out person, and conversions counted per arm from the product's events.
 */
describe('broadcast goals and holdouts', () => {
  let api: TestApi;
  let readKey: string;
  let adminKey: string;
  let ingestKey: string;

  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    const key = async (name: string, scopes: string[]) =>
      (await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name, scopes } })).body.key as string;
    readKey = await key('goals-read', ['read']);
    adminKey = await key('goals-admin', ['journey-admin']);
    ingestKey = await key('goals-ingest', ['ingest']);
  });
  afterAll(() => api?.close());

  const body = (listKey: string, extra: Record<string, unknown> = {}) => ({
    name: `Goal ${randomUUID().slice(0, 8)}`,
    templateKey: 'reengage-we-miss-you',
    category: 'newsletter',
    audience: { listKey },
    data: { productName: 'Atlas', firstName: 'Reader' },
    ...extra,
  });

  async function read(id: string) {
    const answer = await api.request('GET', `/v1/admin/broadcasts/${id}`, { token: readKey });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.broadcast as {
      status: string;
      goal: unknown;
      holdoutPercent: number;
      stats: { sent: number; skipped: { holdout: number }; goal: GoalStats | null };
    };
  }

  const ingest = async (userId: string, eventProperties: Record<string, unknown>) => {
    const answer = await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'subscription.started', userId, eventProperties } });
    expect(answer.status, answer.text).toBeLessThan(300);
  };

  it('refuses a holdout without a goal, a share over 50 % and a window that is no duration', async () => {
    const { listKey } = await seedList(api.deps.db, [{ email: `goal-bad-${randomUUID().slice(0, 8)}@waymark-test.example` }]);
    const goal = { event: 'subscription.started', within: '7 days' };
    for (const [extra, field] of [
      [{ holdoutPercent: 10 }, 'holdoutPercent'],
      [{ goal, holdoutPercent: 60 }, 'holdoutPercent'],
      [{ goal: { event: 'subscription.started', within: 'soon' } }, 'within'],
      [{ goal: { ...goal, where: [{ type: 'property', property: 'plan', operator: 'in', value: 'pro' }] } }, 'where'],
    ] as const) {
      const answer = await api.request('POST', '/v1/admin/broadcasts', { token: adminKey, body: body(listKey, extra) });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.error).toContain(field);
    }
    const draft = await api.request('POST', '/v1/admin/broadcasts', { token: adminKey, body: body(listKey) });
    expect(draft.status).toBe(201);
    const patched = await api.request('PATCH', `/v1/admin/broadcasts/${draft.body.broadcast.id}`, { token: adminKey, body: { holdoutPercent: 20 } });
    expect(patched.status, patched.text).toBe(400);
    expect(patched.body.error).toContain('holdoutPercent');
  });

  it('holds out a plausible share, sends them nothing, and counts exactly the conversions of each arm', async () => {
    const db = api.deps.db;
    const run = randomUUID().slice(0, 8);
    const people = Array.from({ length: AUDIENCE }, (_, i) => ({ email: `goal-${run}-${i}@waymark-test.example` }));
    const { listKey } = await seedList(db, people);
    const created = await api.request('POST', '/v1/admin/broadcasts', {
      token: adminKey,
      body: body(listKey, {
        goal: { event: 'subscription.started', within: '7 days', where: [{ type: 'property', property: 'plan', operator: 'eq', value: 'pro' }] },
        holdoutPercent: HOLDOUT_PERCENT,
      }),
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.broadcast.id as string;
    expect(created.body.broadcast.holdoutPercent).toBe(HOLDOUT_PERCENT);
    expect((await api.request('POST', `/v1/admin/broadcasts/${id}/send`, { token: adminKey })).status).toBe(202);
    await eventually(
      async () => (await read(id)).status,
      (status) => status === 'sent',
      { timeoutMs: 90_000, what: 'broadcast sent' },
    );

    const recipients = await db
      .selectFrom('broadcastRecipients')
      .select(['contactId', 'userId', 'email', 'status', 'reason', 'exposedAt'])
      .where('broadcastId', '=', id)
      .execute();
    expect(recipients).toHaveLength(AUDIENCE);
    const heldOut = recipients.filter((recipient) => recipient.reason === 'holdout');
    const treated = recipients.filter((recipient) => recipient.reason !== 'holdout');
    // the arm is the journeys' rule keyed by the broadcast: the same answer computed here
    for (const recipient of recipients)
      expect(recipient.reason === 'holdout').toBe(holdoutArm({ id, holdout: { percent: HOLDOUT_PERCENT } }, recipient.userId!)!.holdout);
    // within 3 standard deviations of 20 % of 200 (40 ± 17)
    const sd = Math.sqrt(AUDIENCE * 0.2 * 0.8);
    expect(Math.abs(heldOut.length - AUDIENCE * 0.2)).toBeLessThanOrEqual(3 * sd);
    expect(heldOut.every((recipient) => recipient.status === 'skipped')).toBe(true);
    expect(recipients.every((recipient) => recipient.exposedAt !== null)).toBe(true);

    const broadcast = await read(id);
    expect(broadcast.stats.sent).toBe(treated.length);
    expect(broadcast.stats.skipped.holdout).toBe(heldOut.length);
    // every treatment person has the email; no held-out person has one, and no send row
    const delivered = await eventually(
      () => emailsToAny(treated.map((recipient) => recipient.email!)),
      (emails) => emails.length >= treated.length,
      { what: `${treated.length} emails in the emulator` },
    );
    expect(delivered).toHaveLength(treated.length);
    expect(await emailsToAny(heldOut.map((recipient) => recipient.email!))).toEqual([]);
    const heldOutSends = await db
      .selectFrom('emailSends')
      .select('id')
      .where('broadcastId', '=', id)
      .where(
        'toEmail',
        'in',
        heldOut.map((recipient) => recipient.email!),
      )
      .execute();
    expect(heldOutSends).toEqual([]);
    expect(broadcast.stats.goal).toEqual({
      goal: { event: 'subscription.started', within: '7 days' },
      arms: {
        treatment: { enrolled: treated.length, converted: 0, conversionRate: 0, value: 0, valuePerPerson: 0 },
        holdout: { enrolled: heldOut.length, converted: 0, conversionRate: 0, value: 0, valuePerPerson: 0 },
      },
      lift: expect.objectContaining({ absolute: 0 }),
      // by the day of each exposure (today's, unless the send crossed midnight)
      daily: await dailyFromScratch(db, id),
    });

    // the days over time (migration 0270): every exposure moved to three days ago in one statement,
    // which the counters follow (subtracted from the send's day, added to that one)
    const exposedAt = new Date(Date.now() - 3 * DAY_MS);
    await db.updateTable('broadcastRecipients').set({ exposedAt }).where('broadcastId', '=', id).execute();
    expect((await read(id)).stats.goal!.daily).toEqual([
      { day: utcDay(exposedAt), treatment: { enrolled: treated.length, converted: 0 }, holdout: { enrolled: heldOut.length, converted: 0 } },
    ]);

    // K treatment and J held-out people convert; one of them twice (counted once)
    const K = 12;
    const J = 5;
    for (const recipient of [...treated.slice(0, K), ...heldOut.slice(0, J)]) await ingest(recipient.userId!, { plan: 'pro' });
    await ingest(treated[0]!.userId!, { plan: 'pro' });
    // not conversions: the goal's `where` fails; the window has passed; someone outside the audience
    await ingest(treated[K]!.userId!, { plan: 'free' });
    const outOfWindow = new Date(Date.now() - 8 * DAY_MS);
    await db
      .updateTable('broadcastRecipients')
      .set({ exposedAt: outOfWindow })
      .where('broadcastId', '=', id)
      .where('contactId', '=', treated[K + 1]!.contactId)
      .execute();
    await ingest(treated[K + 1]!.userId!, { plan: 'pro' });
    await ingest(`goal-outsider-${run}`, { plan: 'pro' });
    // the batched pipeline (the tracking queue's) converts the same way: two more people, one of them twice in the batch
    const logger = createLogger({ level: 'error', name: 'broadcast-goals-test', format: 'json' });
    const batchDeps = {
      db,
      logger,
      journeys: api.deps.journeys,
      effects: createEffectDispatcher({ db, logger, orchestrator: api.deps.temporal.orchestrator }),
      catalogMode: 'quarantine' as const,
    };
    const goalEvent = (userId: string, plan: string) => ({ name: 'subscription.started', userId, eventProperties: { plan }, source: 'api' as const });
    await ingestEvents(batchDeps, [
      goalEvent(treated[K + 2]!.userId!, 'pro'),
      goalEvent(treated[K + 2]!.userId!, 'pro'),
      goalEvent(treated[K + 3]!.userId!, 'pro'),
      goalEvent(treated[K + 4]!.userId!, 'free'),
    ]);
    const treatmentConverted = K + 2;

    const goal = (await read(id)).stats.goal!;
    expect(goal.arms.treatment).toEqual({
      enrolled: treated.length,
      converted: treatmentConverted,
      conversionRate: treatmentConverted / treated.length,
      value: 0,
      valuePerPerson: 0,
    });
    expect(goal.arms.holdout).toEqual({ enrolled: heldOut.length, converted: J, conversionRate: J / heldOut.length, value: 0, valuePerPerson: 0 });
    expect(goal.lift!.absolute).toBeCloseTo(treatmentConverted / treated.length - J / heldOut.length, 10);
    expect(goal.lift!.ci95[0]).toBeLessThan(goal.lift!.absolute);
    expect(goal.lift!.ci95[1]).toBeGreaterThan(goal.lift!.absolute);
    const converted = await db
      .selectFrom('broadcastRecipients')
      .select(['contactId', 'convertedAt'])
      .where('broadcastId', '=', id)
      .where('convertedAt', 'is not', null)
      .execute();
    expect(converted).toHaveLength(treatmentConverted + J);

    // conversions on two days: 4 treatment and 2 held-out conversions moved to yesterday; each day
    // counts the conversions that happened on it, the exposures stay on theirs (the window's
    // test moved one exposure eight days back)
    const yesterday = new Date(Date.now() - DAY_MS);
    const earlier = [...treated.slice(0, 4), ...heldOut.slice(0, 2)].map((recipient) => recipient.contactId);
    await db.updateTable('broadcastRecipients').set({ convertedAt: yesterday }).where('broadcastId', '=', id).where('contactId', 'in', earlier).execute();
    const today = utcDay(converted.find((row) => row.contactId === treated[K + 3]!.contactId)!.convertedAt!);
    const daily = (await read(id)).stats.goal!.daily;
    expect(daily).toEqual([
      { day: utcDay(outOfWindow), treatment: { enrolled: 1, converted: 0 }, holdout: { enrolled: 0, converted: 0 } },
      { day: utcDay(exposedAt), treatment: { enrolled: treated.length - 1, converted: 0 }, holdout: { enrolled: heldOut.length, converted: 0 } },
      { day: utcDay(yesterday), treatment: { enrolled: 0, converted: 4 }, holdout: { enrolled: 0, converted: 2 } },
      { day: today, treatment: { enrolled: 0, converted: treatmentConverted - 4 }, holdout: { enrolled: 0, converted: J - 2 } },
    ]);
    expect(daily).toEqual(await dailyFromScratch(db, id));

    // a recipient row deleted takes its exposure and its conversion out of their days; the
    // broadcast deleted leaves no counter
    await db.deleteFrom('broadcastRecipients').where('broadcastId', '=', id).where('contactId', '=', heldOut[0]!.contactId).execute();
    const remaining = (await read(id)).stats.goal!.daily;
    expect(remaining).toEqual(await dailyFromScratch(db, id));
    expect(remaining.map((day) => day.holdout)).toEqual([
      { enrolled: 0, converted: 0 },
      { enrolled: heldOut.length - 1, converted: 0 },
      { enrolled: 0, converted: 1 },
      { enrolled: 0, converted: J - 2 },
    ]);
    await db.deleteFrom('broadcasts').where('id', '=', id).execute();
    expect(await db.selectFrom('broadcastGoalDays').select('day').where('broadcastId', '=', id).execute()).toEqual([]);
  });

  it('a broadcast without a goal has stats.goal null, and one with a goal but no holdout has no holdout arm', async () => {
    const address = `goal-plain-${randomUUID().slice(0, 8)}@waymark-test.example`;
    const { listKey } = await seedList(api.deps.db, [{ email: address }]);
    const plain = await api.request('POST', '/v1/admin/broadcasts', { token: adminKey, body: body(listKey) });
    expect(plain.body.broadcast.stats.goal).toBeNull();
    const measured = await api.request('POST', '/v1/admin/broadcasts', {
      token: adminKey,
      body: body(listKey, { goal: { event: 'subscription.started', within: '2 days' } }),
    });
    expect(measured.status, measured.text).toBe(201);
    const id = measured.body.broadcast.id as string;
    expect((await api.request('POST', `/v1/admin/broadcasts/${id}/send`, { token: adminKey })).status).toBe(202);
    await eventually(
      async () => (await read(id)).status,
      (status) => status === 'sent',
      { timeoutMs: 90_000, what: 'broadcast sent' },
    );
    await eventually(
      () => emailsTo(address),
      (emails) => emails.length === 1,
      { what: 'the email' },
    );
    const goal = (await read(id)).stats.goal!;
    expect(goal.arms.holdout).toBeNull();
    expect(goal.lift).toBeNull();
    expect(goal.arms.treatment.enrolled).toBe(1);
    // nobody held out: each day's holdout is null, as the arm is
    const [recipient] = await api.deps.db.selectFrom('broadcastRecipients').select('exposedAt').where('broadcastId', '=', id).execute();
    expect(goal.daily).toEqual([{ day: utcDay(recipient!.exposedAt!), treatment: { enrolled: 1, converted: 0 }, holdout: null }]);
  });
});
