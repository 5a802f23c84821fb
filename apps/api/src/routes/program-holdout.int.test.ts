import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@waymark/core/db/database';
import { programHoldoutArm, type DeliveryPolicy, type ProgramHoldout } from '@waymark/journey';
import { emailsTo, uniqueAddress } from '../../../../test/email-emulator';
import { eventually } from '../../../../test/eventually';
import { journeyStatesOf } from '../../../../test/journey-states';
import { releaseTaskQueue } from '../../../../test/task-queue-cleanup';
import { issueApiKey, startTestApi, type TestApi } from '../../../../test/test-api';
import { startInProcessWorker } from '../../../../test/in-process-worker';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/**
 * The program holdout of the delivery policy on the real stack: a worker of this file's own task
 * queue runs welcome-series and the broadcasts with a policy holding out half of everyone from
 * `journey` and `newsletter` email; the SES emulator receives. A held-out person gets neither a
 * journey email nor a newsletter (both skipped as `holdout`), but a product update still reaches them.
 */
describe('program holdout across journeys and broadcasts (real stack)', () => {
  const taskQueue = `program-holdout-${randomUUID()}`;
  const holdout: ProgramHoldout = { percent: 50, categories: ['journey', 'newsletter'] };
  const policy: DeliveryPolicy = { caps: [], exempt: [], holdout };
  let api: TestApi;
  let ingestKey: string;
  let worker: { db: Db; stop: () => Promise<void> };
  let db: Db;

  beforeAll(async () => {
    worker = await startInProcessWorker({ taskQueue, name: 'holdout-worker', deliveryPolicy: policy });
    db = worker.db;
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, TEMPORAL_TASK_QUEUE: taskQueue });
    ingestKey = await issueApiKey(api, LEGACY, 'holdout-producer', ['ingest']);
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    if (api !== undefined) await releaseTaskQueue(api.deps.temporal.client, taskQueue);
    await api?.close();
  }, 60_000);

  /** A fresh user id the policy's hash puts in the arm asked for (half of all ids are in each). */
  const userIn = (heldOut: boolean): string => {
    for (;;) {
      const userId = `holdout-${randomUUID()}`;
      if (programHoldoutArm(policy, 'journey', userId)!.holdout === heldOut) return userId;
    }
  };
  const signUp = async (userId: string, email: string) => {
    const response = await api.request('POST', '/v1/events', {
      token: ingestKey,
      body: { name: 'user.signed_up', userId, email, eventProperties: { firstName: 'Ada' } },
    });
    expect(response.status).toBe(202);
  };
  const firstDecision = (userId: string) =>
    eventually(
      async () => {
        const [state] = await journeyStatesOf(api.deps.db, userId, 'welcome-series');
        if (state === undefined) return undefined;
        const logs = await db.selectFrom('journeyLogs').selectAll().where('journeyStateId', '=', state.id).orderBy('createdAt').orderBy('id').execute();
        return logs.find((log) => log.action === 'email_sent' || log.action === 'email_skipped');
      },
      (log) => log !== undefined,
      { what: 'the welcome email decided' },
    );

  /** A broadcast of `category` to the contacts of `userIds`, sent and waited for. */
  async function broadcastTo(userIds: readonly string[], category: string) {
    const contacts = await db.selectFrom('contacts').select('id').where('externalId', 'in', userIds).execute();
    expect(contacts).toHaveLength(userIds.length);
    const list = await db
      .insertInto('lists')
      .values({ key: `holdout-${randomUUID().slice(0, 8)}`, name: 'holdout' })
      .returning(['id', 'key'])
      .executeTakeFirstOrThrow();
    await db
      .insertInto('listMemberships')
      .values(contacts.map((contact) => ({ listId: list.id, contactId: contact.id, subscribed: true, updatedAt: new Date() })))
      .execute();
    const created = await api.request('POST', '/v1/admin/broadcasts', {
      token: LEGACY,
      body: {
        name: `Holdout ${randomUUID().slice(0, 8)}`,
        templateKey: 'reengage-we-miss-you',
        category,
        audience: { listKey: list.key },
        data: { productName: 'Atlas' },
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.broadcast.id as string;
    expect((await api.request('POST', `/v1/admin/broadcasts/${id}/send`, { token: LEGACY })).status).toBe(202);
    const done = await eventually(
      async () => (await api.request('GET', `/v1/admin/broadcasts/${id}`, { token: LEGACY })).body.broadcast,
      (broadcast) => broadcast?.status === 'sent',
      { timeoutMs: 90_000, what: 'the broadcast sent' },
    );
    const recipients = await db.selectFrom('broadcastRecipients').select(['userId', 'status', 'reason']).where('broadcastId', '=', id).execute();
    return { stats: done.stats, recipients };
  }

  it('a held-out person gets no journey email and no newsletter (skipped: holdout), explain says why; a product update still reaches them', async () => {
    const held = userIn(true);
    const treated = userIn(false);
    const heldEmail = uniqueAddress('program-held');
    const treatedEmail = uniqueAddress('program-treated');
    await Promise.all([signUp(held, heldEmail), signUp(treated, treatedEmail)]);

    const [heldLog, treatedLog] = await Promise.all([firstDecision(held), firstDecision(treated)]);
    const arm = programHoldoutArm(policy, 'journey', held)!;
    expect(heldLog).toMatchObject({ action: 'email_skipped', detail: { reason: 'holdout', holdout: 'program', bucket: arm.bucket, threshold: 500 } });
    expect(treatedLog!.action).toBe('email_sent');
    const contact = await db.selectFrom('contacts').select('id').where('externalId', '=', held).executeTakeFirstOrThrow();
    const explained = await api.request('GET', `/v1/admin/contacts/${contact.id}/explain?journeyId=welcome-series`, { token: LEGACY });
    expect(explained.status).toBe(200);
    expect(explained.body.explanation.enrollments[0].steps.map((step: { outcome: string }) => step.outcome)).toContain(
      `skipped: held out of all lifecycle email (program holdout, bucket ${arm.bucket} of 1000 is under 500)`,
    );

    const newsletter = await broadcastTo([held, treated], 'newsletter');
    expect(newsletter.recipients.find((row) => row.userId === held)).toMatchObject({ status: 'skipped', reason: 'holdout' });
    expect(newsletter.recipients.find((row) => row.userId === treated)).toMatchObject({ status: 'sent' });
    expect(newsletter.stats.skipped.holdout).toBe(1);
    expect(newsletter.stats.sent).toBe(1);
    // nothing of the held-out person's journey email or newsletter reached SES
    expect(await emailsTo(heldEmail)).toHaveLength(0);
    expect(await emailsTo(treatedEmail)).toHaveLength(2);

    const updates = await broadcastTo([held], 'product-updates');
    expect(updates.recipients).toEqual([{ userId: held, status: 'sent', reason: null }]);
    expect(await emailsTo(heldEmail)).toHaveLength(1);
  });
});
