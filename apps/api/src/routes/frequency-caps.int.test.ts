import { randomUUID } from 'node:crypto';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { createLogger } from '@waymark/core/logging/logger';
import type { DeliveryPolicy, FrequencyCap } from '@waymark/journey';
import { createWorker } from '../../../worker/src/worker';
import { emailsTo, uniqueAddress } from '../../../../test/email-emulator';
import { eventually } from '../../../../test/eventually';
import { journeyStatesOf } from '../../../../test/journey-states';
import { releaseTaskQueue } from '../../../../test/task-queue-cleanup';
import { issueApiKey, startTestApi, type TestApi } from '../../../../test/test-api';
import { seedList } from '../../../../test/seed-list';
import { integrationEnv } from '../../../../test/test-env';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/**
 * Frequency caps on the real stack: the api ingests and starts broadcasts, a worker of this file's
 * own task queue (with the cap each test sets) runs the deployment's journeys and the broadcasts on
 * the Temporal dev server, the SES emulator receives; counted from email_sends across journeys and
 * broadcasts, and told by explain.
 */
describe('frequency caps across journeys and broadcasts (real stack)', () => {
  const taskQueue = `frequency-caps-${randomUUID()}`;
  // one worker for the file; each test sets the cap it needs before its first event
  const policy: { caps: FrequencyCap[]; exempt: string[] } = { caps: [], exempt: [] };
  const capOf = (onCap: FrequencyCap['onCap']): FrequencyCap[] => [{ category: 'journey', max: 2, per: '24h', onCap }];
  let api: TestApi;
  let ingestKey: string;
  let worker: { worker: Worker; close: () => Promise<void> };
  let running: Promise<void>;
  let db: Db;

  beforeAll(async () => {
    // the worker first: it installs the Temporal runtime of this process before any connection does
    const config = loadConfig({ ...integrationEnv(), TEMPORAL_TASK_QUEUE: taskQueue });
    db = createDatabase({ connectionString: config.databaseUrl, max: 4 });
    const logger = createLogger({ level: 'error', name: 'caps-worker', format: 'json' });
    worker = await createWorker({ config, db, logger, deliveryPolicy: policy satisfies DeliveryPolicy });
    running = worker.worker.run();
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, TEMPORAL_TASK_QUEUE: taskQueue });
    ingestKey = await issueApiKey(api, LEGACY, 'caps-producer', ['ingest']);
  }, 120_000);
  afterAll(async () => {
    worker?.worker.shutdown();
    await running;
    await worker?.close();
    await db?.destroy();
    if (api !== undefined) await releaseTaskQueue(api.deps.temporal.client, taskQueue);
    await api?.close();
  }, 60_000);

  const send = async (name: string, userId: string, email: string, eventProperties: Record<string, unknown> = {}, contactProperties?: object) => {
    const response = await api.request('POST', '/v1/events', {
      token: ingestKey,
      body: { name, userId, email, eventProperties, ...(contactProperties === undefined ? {} : { contactProperties }) },
    });
    expect(response.status).toBe(202);
  };
  const logsOf = async (userId: string, journeyId: string) => {
    const [state] = await journeyStatesOf(api.deps.db, userId, journeyId);
    if (state === undefined) return [];
    return api.deps.db.selectFrom('journeyLogs').selectAll().where('journeyStateId', '=', state.id).orderBy('createdAt').orderBy('id').execute();
  };
  const sentBy = async (userId: string, journeyId: string) => (await logsOf(userId, journeyId)).some((log) => log.action === 'email_sent');
  const explain = async (userId: string, journeyId: string) => {
    const response = await api.request('GET', `/v1/admin/contacts/${userId}/explain?journeyId=${journeyId}`, { token: LEGACY });
    expect(response.status).toBe(200);
    return response.body.explanation.enrollments[0].steps.map((step: { outcome: string }) => step.outcome) as string[];
  };

  /**
   * Welcome, then payment-failed: two journey emails to the address from two journeys, each waited
   * for; the third, trial-ending's reminder, comes next (journeys without `suppress.hours`, so only
   * the cap decides).
   */
  async function twoJourneysSend(userId: string, email: string, contactProperties?: object): Promise<void> {
    await send('user.signed_up', userId, email, { firstName: 'Ada' }, contactProperties);
    await eventually(() => sentBy(userId, 'welcome-series'), Boolean, { what: 'the welcome email' });
    await send('payment.failed', userId, email, { amount: '$10.00' });
    await eventually(() => sentBy(userId, 'payment-recovery'), Boolean, { what: 'the payment-failed email' });
  }
  const trialEnding = (userId: string, email: string) =>
    send('stripe.customer.subscription.trial_will_end', userId, email, { plan: 'pro', trial_end: Math.floor(Date.now() / 1000) + 3 * 86_400 });

  // repeated: the race it guards (three decisions in the same few milliseconds) shows on some runs only
  it('skip: three journeys triggered at once → 2 sent, 1 skipped by the cap (frequency_cap), and explain names the cap', { repeats: 3 }, async () => {
    policy.caps = capOf('skip');
    const userId = `caps-${randomUUID()}`;
    const email = uniqueAddress('caps-skip');
    const journeys = ['welcome-series', 'payment-recovery', 'trial-ending'];
    await Promise.all([
      send('user.signed_up', userId, email, { firstName: 'Ada' }),
      send('payment.failed', userId, email, { amount: '$10.00' }),
      trialEnding(userId, email),
    ]);
    const outcomes = async () => {
      const logs = await Promise.all(journeys.map((journeyId) => logsOf(userId, journeyId)));
      return logs.map((rows) => rows.find((log) => log.action === 'email_sent' || log.action === 'email_skipped'));
    };
    const settled = await eventually(outcomes, (found) => found.every((log) => log !== undefined), { what: 'each journey’s first send decided' });
    expect(settled.map((log) => log!.action).sort()).toEqual(['email_sent', 'email_sent', 'email_skipped']);
    const skippedIn = journeys[settled.findIndex((log) => log!.action === 'email_skipped')]!;
    expect(settled.find((log) => log!.action === 'email_skipped')!.detail).toMatchObject({ reason: 'frequency_cap', cap: '2 per 24h (journey)' });
    expect(await explain(userId, skippedIn)).toContain('skipped: frequency cap 2 per 24h (journey) reached');
    // nothing of the capped send was written or sent: two emails reached the address
    expect(await api.deps.db.selectFrom('emailSends').select('id').where('toEmail', '=', email).execute()).toHaveLength(2);
    expect((await emailsTo(email)).length).toBe(2);
  });

  it("delay: the third is held until the window has room, on the recipient's clock, and explain names the hold", async () => {
    policy.caps = capOf('delay');
    const userId = `caps-${randomUUID()}`;
    const email = uniqueAddress('caps-delay');
    await twoJourneysSend(userId, email, { timezone: 'Europe/Paris' });
    await trialEnding(userId, email);
    const held = await eventually(
      async () => (await logsOf(userId, 'trial-ending')).find((log) => log.action === 'held'),
      (log) => log !== undefined,
      { what: 'the held trial-ending email' },
    );
    const first = await api.deps.db.selectFrom('emailSends').select('createdAt').where('toEmail', '=', email).orderBy('createdAt').executeTakeFirstOrThrow();
    const until = new Date(first.createdAt.getTime() + 86_400_000);
    expect(held!.detail).toMatchObject({ reason: 'frequency_cap', cap: '2 per 24h (journey)', until: until.toISOString(), timeZone: 'Europe/Paris' });
    const [state] = await journeyStatesOf(api.deps.db, userId, 'trial-ending');
    expect(state!.status).toBe('waiting');
    const localUntil = String((held!.detail as { localUntil: string }).localUntil);
    expect(await explain(userId, 'trial-ending')).toContain(
      `held by frequency cap 2 per 24h (journey) until ${localUntil.slice(11, 16)} Europe/Paris (${localUntil})`,
    );
    expect((await emailsTo(email)).length).toBe(2);
  });

  it('an exempt category is neither capped nor counted', async () => {
    policy.caps = capOf('skip');
    policy.exempt = [];
    const userId = `caps-${randomUUID()}`;
    const email = uniqueAddress('caps-exempt');
    await twoJourneysSend(userId, email);
    policy.caps = [{ category: '*', max: 2, per: '24h', onCap: 'skip' }];
    policy.exempt = ['journey'];
    await trialEnding(userId, email);
    await eventually(() => sentBy(userId, 'trial-ending'), Boolean, { what: 'the exempt trial-ending email' });
    expect((await emailsTo(email)).length).toBe(3);
  });

  const listOf = async (addresses: readonly string[]) =>
    (
      await seedList(
        db,
        addresses.map((email) => ({ email })),
      )
    ).listKey;

  async function sendBroadcastTo(listKey: string) {
    const created = await api.request('POST', '/v1/admin/broadcasts', {
      token: LEGACY,
      body: {
        name: `Caps ${randomUUID().slice(0, 8)}`,
        templateKey: 'reengage-we-miss-you',
        category: 'newsletter',
        audience: { listKey },
        data: { productName: 'Atlas' },
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.broadcast.id as string;
    expect((await api.request('POST', `/v1/admin/broadcasts/${id}/send`, { token: LEGACY })).status).toBe(202);
    return id;
  }
  const recipientsOf = (id: string) =>
    db.selectFrom('broadcastRecipients').select(['email', 'status', 'reason', 'sendAt']).where('broadcastId', '=', id).orderBy('email').execute();

  it('across a journey and a broadcast: the person a journey just emailed is skipped by the broadcast, the other gets it', async () => {
    policy.caps = [{ category: '*', max: 1, per: '24h', onCap: 'skip' }];
    policy.exempt = [];
    const userId = `caps-${randomUUID()}`;
    const emailed = uniqueAddress('caps-journey');
    const fresh = uniqueAddress('caps-fresh');
    const listKey = await listOf([emailed, fresh]);
    await send('user.signed_up', userId, emailed, { firstName: 'Ada' });
    await eventually(() => sentBy(userId, 'welcome-series'), Boolean, { what: 'the welcome email' });
    const id = await sendBroadcastTo(listKey);
    const done = await eventually(
      async () => (await api.request('GET', `/v1/admin/broadcasts/${id}`, { token: LEGACY })).body.broadcast,
      (broadcast) => broadcast?.status === 'sent',
      { timeoutMs: 90_000, what: 'the broadcast sent' },
    );
    expect(done.stats.sent).toBe(1);
    expect(done.stats.skipped.frequencyCap).toBe(1);
    const recipients = await recipientsOf(id);
    expect(recipients.find((row) => row.email === emailed)).toMatchObject({ status: 'skipped', reason: 'frequency_cap' });
    expect(recipients.find((row) => row.email === fresh)).toMatchObject({ status: 'sent' });
    expect((await emailsTo(emailed)).length).toBe(1);
    expect((await emailsTo(fresh)).length).toBe(1);
  });

  it('across a journey and a broadcast, delay: the capped recipient waits in the broadcast until the window has room', async () => {
    policy.caps = [{ category: '*', max: 1, per: '24h', onCap: 'delay' }];
    policy.exempt = [];
    const userId = `caps-${randomUUID()}`;
    const emailed = uniqueAddress('caps-journey');
    const listKey = await listOf([emailed]);
    await send('user.signed_up', userId, emailed, { firstName: 'Ada' });
    await eventually(() => sentBy(userId, 'welcome-series'), Boolean, { what: 'the welcome email' });
    const welcome = await db.selectFrom('emailSends').select('createdAt').where('toEmail', '=', emailed).executeTakeFirstOrThrow();
    const id = await sendBroadcastTo(listKey);
    const [held] = await eventually(
      () => recipientsOf(id),
      (rows) => rows[0]?.sendAt != null,
      { what: 'the recipient held until the window has room' },
    );
    expect(held).toMatchObject({ status: 'pending', sendAt: new Date(welcome.createdAt.getTime() + 86_400_000) });
    expect((await emailsTo(emailed)).length).toBe(1);
    // still sending, waiting for the window; cancelled here, so the run does not wait a day
    expect((await api.request('GET', `/v1/admin/broadcasts/${id}`, { token: LEGACY })).body.broadcast.status).toBe('sending');
    expect((await api.request('POST', `/v1/admin/broadcasts/${id}/cancel`, { token: LEGACY })).status).toBe(200);
  });
});
