import { randomUUID } from 'node:crypto';
import { createElement } from 'react';
import { z } from 'zod';
import type { EmailTemplate } from '@waymark/email/email-template';
import { REDACTED } from '@waymark/email/secret-props';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import type { EmailTransport } from '@waymark/email/ses-transport';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { integrationEnv } from '../../../../test/test-env';
import { emailsTo, header, uniqueAddress } from '../../../../test/email-emulator';
import { createEmailDeps } from './create-email-deps';
import type { EmailDeps } from './email-deps';
import { sendEmail, type SendEmailInput } from './send-email';
import { createBatchSender, createQueuedSends } from './send-email-batch';
import { deliverJourneyEmail } from '../journeys/deliver-journey-email';
import type { SendJourneyEmailInput } from '../journeys/journey-email';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { dieDuringProviderCall } from '../../../../test/dying-send';
import { signedSnsMessage } from '../../../../test/sns-signer';
import { EMAIL_SEND_ID_TAG } from '@waymark/email/ses-notification';
import { processSesNotification } from '../webhooks/email-provider/process-notification';

/**
 * The send path against real PostgreSQL and the SES emulator. Failure injection wraps the real
 * transport (no test branches in production code).
 */
describe('sendEmail (exactly once, failures, DLQ, suppress window)', () => {
  const config = loadConfig(integrationEnv());
  let db: Db;
  let email: EmailDeps;

  beforeAll(() => {
    db = createDatabase({ connectionString: config.databaseUrl, max: 4 });
    email = createEmailDeps(config, { db, templates: emailTemplates, categories: deploymentCategories });
  });
  afterAll(() => db.destroy());

  const withTransport = (transport: EmailTransport): EmailDeps => ({ ...email, transport });

  it('renders, tracks and sends through SES with List-Unsubscribe headers; stores providerMessageId and sentAt', async () => {
    const to = uniqueAddress('send');
    const result = await sendEmail(email, {
      templateKey: 'trial-welcome',
      to,
      userId: `u-${randomUUID()}`,
      data: { firstName: 'Ada', plan: 'pro' },
      idempotencyKey: randomUUID(),
    });
    expect(result.status).toBe('sent');
    const row = await db.selectFrom('emailSends').selectAll().where('id', '=', result.emailSendId!).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'sent', subject: 'Your pro trial of Waymark has started', category: 'journey', toEmail: to });
    expect(row.providerMessageId).toBeTruthy();
    expect(row.sentAt).toBeInstanceOf(Date);

    const [sent] = await emailsTo(to);
    expect(sent?.messageId).toBe(row.providerMessageId);
    expect(sent?.subject).toBe(row.subject);
    expect(header(sent!, 'List-Unsubscribe')).toMatch(/^<http:\/\/localhost:3002\/v1\/email\/unsubscribe\?token=[\w.-]+>$/);
    expect(header(sent!, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    const links = await db.selectFrom('trackedLinks').selectAll().where('emailSendId', '=', row.id).execute();
    expect(links.map((link) => link.originalUrl)).toEqual(['https://app.example.com/']);
    expect(sent?.body.html).toContain(`/v1/t/c/${links[0]!.id}`);
    expect(sent?.body.html).toContain(`/v1/t/o/${row.id}`);
    expect(sent?.body.html).toContain('/v1/email/unsubscribe?token=');
    expect(sent?.body.text).toContain('Unsubscribe');
  });

  it('sends exactly once when the step fails AFTER the provider accepted the message, and is retried', async () => {
    const to = uniqueAddress('once');
    const key = randomUUID();
    // The activity's work after the send (e.g. the journey log write) throws on the first attempt:
    let attempt = 0;
    const step = async () => {
      attempt += 1;
      const result = await sendEmail(email, { templateKey: 'welcome', to, idempotencyKey: key });
      if (attempt === 1) throw new Error('worker died after the provider call');
      return result;
    };
    await expect(step()).rejects.toThrow('worker died');
    const retried = await step();
    expect(retried.status).toBe('sent');
    expect(await emailsTo(to)).toHaveLength(1);
    expect(await db.selectFrom('emailSends').select('id').where('idempotencyKey', '=', key).execute()).toHaveLength(1);
  });

  const sendRow = (key: string) => db.selectFrom('emailSends').selectAll().where('idempotencyKey', '=', key).executeTakeFirstOrThrow();

  describe('a delivery unknown (an attempt died DURING the provider call)', () => {
    it('required category, event publishing off: never sent twice, failed + DLQ (the policy asks)', async () => {
      const to = uniqueAddress('died');
      const key = randomUUID();
      await dieDuringProviderCall(email, { templateKey: 'welcome', to, idempotencyKey: key, category: 'transactional' }, true);
      const retry = await sendEmail(email, { templateKey: 'welcome', to, idempotencyKey: key, category: 'transactional' });
      expect(retry).toMatchObject({ status: 'failed' });
      expect(retry).not.toHaveProperty('dropped');
      expect(await emailsTo(to)).toHaveLength(1);
      const dlq = await db.selectFrom('dlqEntries').selectAll().where('sourceId', '=', retry.emailSendId!).executeTakeFirstOrThrow();
      expect(dlq).toMatchObject({ source: 'email', status: 'pending' });
      expect(dlq.payload).toMatchObject({ templateKey: 'welcome', to, idempotencyKey: key });
    });

    it('other categories, event publishing off: dropped at most once, `unknown_dropped` with the reason, no DLQ entry', async () => {
      const to = uniqueAddress('dropped');
      const key = randomUUID();
      await dieDuringProviderCall(email, { templateKey: 'welcome', to, idempotencyKey: key }, true);
      const retry = await sendEmail(email, { templateKey: 'welcome', to, idempotencyKey: key });
      expect(retry).toMatchObject({ status: 'failed', dropped: true });
      expect(retry).toMatchObject({ reason: expect.stringContaining('dropped, not resent') });
      expect(await sendRow(key)).toMatchObject({ status: 'unknown_dropped', errorMessage: expect.stringContaining('category "journey"') });
      // asked again: the same answer, nothing sent
      expect(await sendEmail(email, { templateKey: 'welcome', to, idempotencyKey: key })).toMatchObject({ status: 'failed', dropped: true });
      expect(await emailsTo(to)).toHaveLength(1);
      expect(await db.selectFrom('dlqEntries').select('id').where('sourceId', '=', retry.emailSendId!).execute()).toEqual([]);
    });

    it('a category whose policy says `resend`: sent again under the same row (at least once)', async () => {
      const to = uniqueAddress('resend');
      const key = randomUUID();
      const resending: EmailDeps = { ...email, delivery: { ...email.delivery, policy: { caps: [], exempt: [], unknown: { journey: 'resend' } } } };
      await dieDuringProviderCall(email, { templateKey: 'welcome', to, idempotencyKey: key }, false);
      const retry = await sendEmail(resending, { templateKey: 'welcome', to, idempotencyKey: key });
      expect(retry).toMatchObject({ status: 'sent' });
      const [stored] = await emailsTo(to);
      expect(await sendRow(key)).toMatchObject({ id: retry.emailSendId, status: 'sent', providerMessageId: stored!.messageId });
    });

    it("event publishing on: SES's later Send event (found by the send id tag) marks it sent with its message id; the retry sends nothing", async () => {
      const to = uniqueAddress('settled');
      const key = randomUUID();
      const publishing: EmailDeps = { ...email, unknownDeliveries: { settleMs: 60_000 } };
      await dieDuringProviderCall(publishing, { templateKey: 'welcome', to, idempotencyKey: key }, true);
      const claimed = await sendRow(key);
      // before the event: the retry waits for it (the window has not passed), it does not send
      const early = await sendEmail(publishing, { templateKey: 'welcome', to, idempotencyKey: key });
      expect(early).toMatchObject({ status: 'deferred', reason: 'delivery_unknown' });
      const [stored] = await emailsTo(to);
      const sendEvent = JSON.stringify({
        eventType: 'Send',
        mail: { messageId: stored!.messageId, destination: [to], timestamp: new Date().toISOString(), tags: { [EMAIL_SEND_ID_TAG]: [claimed.id] } },
        send: {},
      });
      expect(await processSesNotification(db, signedSnsMessage({ Message: sendEvent }), { bounceThreshold: 3, isRequired: () => false })).toMatchObject({
        processed: true,
        kind: 'sent',
        emailSendId: claimed.id,
      });
      expect(await sendRow(key)).toMatchObject({ id: claimed.id, status: 'sent', providerMessageId: stored!.messageId });
      expect(await sendEmail(publishing, { templateKey: 'welcome', to, idempotencyKey: key })).toEqual({ status: 'sent', emailSendId: claimed.id });
      expect(await emailsTo(to)).toHaveLength(1);
    });
  });

  it('retries provider errors, then marks the send failed and parks it in the DLQ with what is needed to retry', async () => {
    const to = uniqueAddress('fail');
    const key = randomUUID();
    let calls = 0;
    const broken: EmailTransport = {
      send: async () => {
        calls += 1;
        throw new Error('SES: Throttling');
      },
    };
    const deps = withTransport(broken);
    for (let attempt = 1; attempt < 3; attempt += 1) {
      await expect(sendEmail(deps, { templateKey: 'welcome', to, idempotencyKey: key, maxAttempts: 3 })).rejects.toThrow('Throttling');
    }
    const final = await sendEmail(deps, { templateKey: 'welcome', to, idempotencyKey: key, maxAttempts: 3 });
    expect(final).toMatchObject({ status: 'failed' });
    expect(calls).toBe(3);
    const row = await db.selectFrom('emailSends').selectAll().where('idempotencyKey', '=', key).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'failed', sendAttempts: 3, providerMessageId: null });
    const dlq = await db.selectFrom('dlqEntries').selectAll().where('sourceId', '=', row.id).execute();
    expect(dlq).toHaveLength(1);
    expect(dlq[0]).toMatchObject({ source: 'email', retryCount: 3 });
    expect(dlq[0]!.payload).toMatchObject({ emailSendId: row.id, templateKey: 'welcome', to, category: 'journey', idempotencyKey: key });
    // a later call with the same key does not send either
    expect(await sendEmail(email, { templateKey: 'welcome', to, idempotencyKey: key })).toMatchObject({ status: 'failed' });
    expect(await emailsTo(to)).toHaveLength(0);
  });

  it('fails for good (no retry) on data that does not match the template schema', async () => {
    const key = randomUUID();
    const result = await sendEmail(email, { templateKey: 'order-receipt', to: uniqueAddress('bad'), data: { orderId: 'A-1', items: [] }, idempotencyKey: key });
    expect(result).toMatchObject({ status: 'failed' });
    expect(result.status === 'failed' && result.reason).toMatch(/items/);
  });

  it('rejects an unknown template with a 400-class error and writes nothing', async () => {
    const key = randomUUID();
    await expect(sendEmail(email, { templateKey: 'no-such-template', to: uniqueAddress(), idempotencyKey: key })).rejects.toMatchObject({ status: 400 });
    expect(await db.selectFrom('emailSends').select('id').where('idempotencyKey', '=', key).execute()).toHaveLength(0);
  });

  it('skips a suppressed, unsubscribed or category-unsubscribed address without writing a send', async () => {
    const to = uniqueAddress('gate');
    await db
      .insertInto('emailPreferences')
      .values({ email: to.toUpperCase(), userId: null, categories: JSON.stringify({ journey: false }) })
      .execute();
    expect(await sendEmail(email, { templateKey: 'welcome', to, idempotencyKey: randomUUID() })).toEqual({
      status: 'skipped',
      reason: 'category_unsubscribed',
    });
    // another category still goes out
    expect(
      await sendEmail(email, {
        templateKey: 'order-receipt',
        to,
        data: { orderId: '1', items: [{ name: 'x', quantity: 1, price: 1 }] },
        idempotencyKey: randomUUID(),
      }),
    ).toMatchObject({ status: 'sent' });
  });

  it('defers a journey email inside suppress.hours of the previous journey email, until the window ends', async () => {
    const to = uniqueAddress('window');
    const state = await db
      .insertInto('journeyStates')
      .values({ journeyId: 'test-journey', userId: `u-${randomUUID()}`, userEmail: to, workflowId: `wf-${randomUUID()}`, context: '{}' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const first = await sendEmail(email, { templateKey: 'welcome', to, journeyStateId: state.id, idempotencyKey: randomUUID(), suppressHours: 24 });
    expect(first.status).toBe('sent');
    const second = await sendEmail(email, { templateKey: 'welcome-tips', to, journeyStateId: state.id, idempotencyKey: randomUUID(), suppressHours: 24 });
    expect(second.status).toBe('deferred');
    const sentAt = (await db.selectFrom('emailSends').select('sentAt').where('id', '=', first.emailSendId!).executeTakeFirstOrThrow()).sentAt!;
    expect(second.status === 'deferred' && second.retryAt.getTime()).toBe(sentAt.getTime() + 24 * 3_600_000);
    // transactional sends ignore the window and do not start one
    expect((await sendEmail(email, { templateKey: 'welcome-tips', to, idempotencyKey: randomUUID() })).status).toBe('sent');
    expect(await emailsTo(to)).toHaveLength(2);
  });

  /** A journey step of a live state of its own sending `templateKey` to `to`: the state, the step's idempotency key and its outcome. */
  async function journeyStep(to: string, templateKey: string, data: SendJourneyEmailInput['data']) {
    const state = await db
      .insertInto('journeyStates')
      .values({ journeyId: 'test-journey', userId: `u-${randomUUID()}`, userEmail: to, workflowId: `wf-${randomUUID()}`, context: '{}' })
      .returning(['id', 'userId'])
      .executeTakeFirstOrThrow();
    const key = `wf:${randomUUID()}:${templateKey}:1`;
    const input = {
      stateId: state.id,
      journeyId: 'test-journey',
      userId: state.userId,
      userEmail: to,
      templateKey,
      nodeId: templateKey,
      data,
      category: 'journey',
      idempotencyKey: key,
    };
    return { state, key, result: await deliverJourneyEmail(email, input) };
  }

  it('a journey step naming an unknown template fails for good: email_failed log, DLQ entry, the journey goes on', async () => {
    const to = uniqueAddress('unknown-template');
    const { state, key, result } = await journeyStep(to, 'missing-template', {});
    expect(result).toMatchObject({ status: 'failed', reason: 'Unknown email template "missing-template"' });
    const logs = await db.selectFrom('journeyLogs').select(['action', 'detail']).where('journeyStateId', '=', state.id).execute();
    expect(logs).toEqual([{ action: 'email_failed', detail: { templateKey: 'missing-template', reason: 'Unknown email template "missing-template"' } }]);
    const dlq = await db
      .selectFrom('dlqEntries')
      .selectAll()
      .where('source', '=', 'email')
      .where(sql<string>`payload ->> 'idempotencyKey'`, '=', key)
      .executeTakeFirstOrThrow();
    expect(dlq.payload).toMatchObject({ templateKey: 'missing-template', to, category: 'journey' });
    const live = await db.selectFrom('journeyStates').select('status').where('id', '=', state.id).executeTakeFirstOrThrow();
    expect(live.status).toBe('active');
  });

  it('a journey step whose data its template refuses is parked with the secret props redacted', async () => {
    const to = uniqueAddress('refused-data');
    const resetUrl = `https://app.example/reset?token=${randomUUID()}`;
    const { key, result } = await journeyStep(to, 'auth-password-reset', { resetUrl, expiresInMinutes: 'soon' });
    expect(result.status).toBe('failed');
    const dlq = await db
      .selectFrom('dlqEntries')
      .selectAll()
      .where('source', '=', 'email')
      .where(sql<string>`payload ->> 'idempotencyKey'`, '=', key)
      .executeTakeFirstOrThrow();
    expect(dlq.payload).toMatchObject({ templateKey: 'auth-password-reset', data: { resetUrl: '[redacted]', expiresInMinutes: 'soon' } });
    expect(JSON.stringify(dlq.payload)).not.toContain(resetUrl);
  });

  /**
   * The batched send path of broadcast chunks: the claims and the "sent" records of sends in
   * flight together go in shared statements (group commit).
   */
  describe('createBatchSender (group commit of claims and sent records)', () => {
    const inputs = (count: number, tag: string): SendEmailInput[] =>
      Array.from({ length: count }, (_, i) => ({
        templateKey: 'trial-welcome',
        to: uniqueAddress(`${tag}${i}`),
        data: { firstName: `Reader ${i}`, plan: 'pro' },
        userId: `u-${randomUUID()}`,
        idempotencyKey: randomUUID(),
      }));
    const queue = (deps: EmailDeps, list: SendEmailInput[]) =>
      createQueuedSends(
        deps,
        list.map((input) => ({ input, category: 'journey' })),
      );

    /**
     * The real transport, but no call answers until `count` calls have been accepted: they answer
     * in one turn, so their sent records go in one flush. `answer` may replace the message id.
     */
    const gathering = (count: number, answer: (messageId: string, call: number) => string = (id) => id): EmailTransport => {
      const waiting: (() => void)[] = [];
      return {
        send: async (message) => {
          const { messageId } = await email.transport.send(message);
          const call = waiting.length + 1;
          await new Promise<void>((resolve) => {
            waiting.push(resolve);
            if (waiting.length === count) for (const release of waiting) release();
          });
          return { messageId: answer(messageId, call) };
        },
      };
    };

    it('sends accepted together all end sent, each with its own provider message id and tracked links', async () => {
      const list = inputs(6, 'batch');
      const deps = { ...email, transport: gathering(list.length) };
      const rows = await queue(deps, list);
      expect(rows.size).toBe(list.length);
      const sender = createBatchSender(deps);
      const results = await Promise.all(list.map((input) => sender.send(rows.get(input.idempotencyKey)!)));
      expect(results.map((result) => result.status)).toEqual(list.map(() => 'sent'));

      for (const input of list) {
        const row = await db.selectFrom('emailSends').selectAll().where('idempotencyKey', '=', input.idempotencyKey).executeTakeFirstOrThrow();
        expect(row).toMatchObject({ status: 'sent', subject: 'Your pro trial of Waymark has started', toEmail: input.to, errorMessage: null });
        expect(row.sentAt).toBeInstanceOf(Date);
        const delivered = await emailsTo(input.to);
        expect(delivered).toHaveLength(1);
        expect(delivered[0]!.messageId).toBe(row.providerMessageId);
        const links = await db.selectFrom('trackedLinks').selectAll().where('emailSendId', '=', row.id).execute();
        expect(links.map((link) => link.originalUrl)).toEqual(['https://app.example.com/']);
        expect(delivered[0]!.body.html).toContain(`/v1/t/c/${links[0]!.id}`);
        expect(delivered[0]!.body.html).toContain(`/v1/t/o/${row.id}`);
      }
      const ids = results.map((result) => result.emailSendId);
      expect(new Set(ids).size).toBe(list.length);

      // queued again (a chunk run twice): the rows are found as they are and nothing is sent again
      const again = await queue(deps, list);
      expect([...again.values()].map((row) => row.status)).toEqual(list.map(() => 'sent'));
      const second = createBatchSender(email);
      for (const input of list) expect(await second.send(again.get(input.idempotencyKey)!)).toMatchObject({ status: 'sent' });
      for (const input of list) expect(await emailsTo(input.to)).toHaveLength(1);
    });

    it('a failing sent flush is not swallowed: its sends record themselves alone, and the one whose message id another send holds ends "delivery unknown" in the DLQ without throwing', async () => {
      const list = inputs(3, 'flush');
      const duplicateId = `dup-${randomUUID()}`;
      // two accepted messages come back with one message id: the unique provider id index fails the shared UPDATE
      const deps: EmailDeps = { ...email, transport: gathering(list.length, (messageId, call) => (call <= 2 ? duplicateId : messageId)) };
      const rows = await queue(deps, list);
      const sender = createBatchSender(deps);
      const results = await Promise.all(list.map((input) => sender.send(rows.get(input.idempotencyKey)!)));
      expect(results.map((result) => result.status).sort()).toEqual(['failed', 'sent', 'sent']);
      const failed = results.find((result) => result.status === 'failed')!;
      expect(failed).toMatchObject({ reason: `Delivery unknown: the provider accepted it as ${duplicateId}, a message id another send already holds` });
      const stored = await db
        .selectFrom('emailSends')
        .selectAll()
        .where(
          'idempotencyKey',
          'in',
          list.map((input) => input.idempotencyKey),
        )
        .execute();
      expect(stored.filter((row) => row.status === 'sent')).toHaveLength(2);
      const stuck = stored.find((row) => row.status !== 'sent')!;
      expect(stuck).toMatchObject({ id: failed.emailSendId, status: 'failed', providerMessageId: null });
      expect(await db.selectFrom('dlqEntries').select('id').where('sourceId', '=', stuck.id).execute()).toHaveLength(1);
      // a retry never sends it again
      expect(await createBatchSender(email).send(stuck)).toMatchObject({ status: 'failed', emailSendId: stuck.id });
      expect(await emailsTo(stuck.toEmail)).toHaveLength(1);
    });
  });
});

/**
 * docs/email.md, "Secret props": a secret a template puts in its subject (a one-time code) is
 * mailed, and kept as the placeholder wherever the send is kept: the row's subject included, which
 * the admin plane shows to a read key.
 */
describe('sendEmail: a secret in the subject', () => {
  const config = loadConfig(integrationEnv());
  const codeSchema = z.object({ code: z.string().meta({ secret: true }), firstName: z.string() });
  const signInCode: EmailTemplate<typeof codeSchema> = {
    key: 'sign-in-code',
    schema: codeSchema,
    subject: ({ code }) => `Your sign-in code is ${code}`,
    component: ({ firstName }) => createElement('p', null, `Hi ${firstName}, the code is in the subject.`),
    sampleData: { code: '000000', firstName: 'Ada' },
  };
  let db: Db;
  let email: EmailDeps;
  beforeAll(() => {
    db = createDatabase({ connectionString: config.databaseUrl, max: 2 });
    email = createEmailDeps(config, { db, templates: [...emailTemplates, signInCode as unknown as EmailTemplate], categories: deploymentCategories });
  });
  afterAll(() => db.destroy());

  it('mails the code in the subject and keeps the subject with the placeholder; a retry of the send mails the code again', async () => {
    const to = uniqueAddress('code-subject');
    const code = `C-${randomUUID().slice(0, 8)}`;
    const input = { templateKey: 'sign-in-code', to, data: { code, firstName: 'Ada' }, idempotencyKey: randomUUID() };
    // the first attempt fails at the provider after its claim: the retry renders from the kept row
    const failing: EmailTransport = { send: () => Promise.reject(Object.assign(new Error('throttled'), { name: 'Throttling', retryable: true })) };
    await sendEmail({ ...email, transport: failing }, { ...input, maxAttempts: 1 }).catch(() => undefined);
    const sent = await sendEmail(email, input);
    expect(sent.status).toBe('sent');
    const [message] = await emailsTo(to);
    expect(message?.subject).toBe(`Your sign-in code is ${code}`);
    const row = await db.selectFrom('emailSends').select(['subject', 'data']).where('toEmail', '=', to).executeTakeFirstOrThrow();
    expect(row.subject).toBe(`Your sign-in code is ${REDACTED}`);
    expect(JSON.stringify(row)).not.toContain(code);
  });
});
