import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeEach, describe, expect, it } from 'vitest';
import { EMAIL_SEND_ID_TAG } from '@waymark/email/ses-notification';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { emailsTo, uniqueAddress } from '../../../../test/email-emulator';
import { useScratchDatabase } from '../../../../test/scratch-database';
import { signedSnsMessage } from '../../../../test/sns-signer';
import { integrationEnv } from '../../../../test/test-env';
import { dieDuringProviderCall } from '../../../../test/dying-send';
import { loadConfig } from '../config/config';
import { processSesNotification } from '../webhooks/email-provider/process-notification';
import { createEmailDeps } from './create-email-deps';
import type { EmailDeps } from './email-deps';
import { sendEmail, type SendEmailInput } from './send-email';

const SETTLE_MS = 1_000;
const HOUR_MS = 3_600_000;

/**
 * docs/email.md, "Exactly once": with SES event publishing, a send whose attempt stopped during the
 * provider call is sent again only once the settle window has passed AND SES's event stream has come
 * past its claim for that long. Against real PostgreSQL and the SES emulator, in a database of this
 * file's own: the rule reads every send and notification, so each test sets up the whole world
 * (emptied before it) and the other test files' sends cannot move it.
 */
describe('an unknown delivery with SES event publishing: sent again only when the event stream has come past it', () => {
  const scratch = useScratchDatabase();
  const config = loadConfig(integrationEnv());
  let email: EmailDeps;
  let publishing: EmailDeps;

  beforeEach(async () => {
    email = createEmailDeps(config, { db: scratch.db(), templates: emailTemplates, categories: deploymentCategories });
    publishing = { ...email, unknownDeliveries: { settleMs: SETTLE_MS } };
    await sql`truncate email_sends, email_provider_notifications cascade`.execute(scratch.db());
  });

  const sendRow = (key: string) => scratch.db().selectFrom('emailSends').selectAll().where('idempotencyKey', '=', key).executeTakeFirstOrThrow();
  const welcome = (to: string, key: string): SendEmailInput => ({ templateKey: 'welcome', to, idempotencyKey: key });

  /** SES's Send event of a send, as the webhook receives it (tagged with the send id) */
  async function sendEvent(emailSendId: string, messageId: string, to: string, acceptedAt: Date) {
    const event = JSON.stringify({
      eventType: 'Send',
      mail: { messageId, destination: [to], timestamp: acceptedAt.toISOString(), tags: { [EMAIL_SEND_ID_TAG]: [emailSendId] } },
      send: {},
    });
    return processSesNotification(scratch.db(), signedSnsMessage({ Message: event }), { bounceThreshold: 3, isRequired: () => false });
  }

  /** a send after the claim that SES accepted and whose attempt recorded it (its event not received) */
  async function laterSend(): Promise<{ emailSendId: string; messageId: string; to: string }> {
    const to = uniqueAddress('later');
    const result = await sendEmail(email, welcome(to, randomUUID()));
    expect(result.status).toBe('sent');
    const row = await scratch.db().selectFrom('emailSends').selectAll().where('id', '=', result.emailSendId!).executeTakeFirstOrThrow();
    return { emailSendId: row.id, messageId: row.providerMessageId!, to };
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** waits until the settle window since the send's claim has passed; resolves the claimed row */
  const windowPassed = async (key: string) => {
    const claimed = await sendRow(key);
    await sleep(Math.max(0, claimed.sendStartedAt!.getTime() + SETTLE_MS + 50 - Date.now()));
    return claimed;
  };

  it('events late: SES accepted later sends but none of their events has arrived, so the retry waits; the late Send event then settles it, one email', async () => {
    const to = uniqueAddress('late');
    const key = randomUUID();
    await dieDuringProviderCall(publishing, welcome(to, key), true);
    await laterSend();
    const claimed = await windowPassed(key);
    expect(Date.now()).toBeGreaterThan(claimed.sendStartedAt!.getTime() + SETTLE_MS);

    // past the window, but the webhook is behind (or down): the Send event may still come
    expect(await sendEmail(publishing, welcome(to, key))).toMatchObject({ status: 'deferred', reason: 'delivery_unknown' });
    expect(await emailsTo(to)).toHaveLength(1);
    expect(await sendRow(key)).toMatchObject({ status: 'rendered', providerMessageId: null });

    const [stored] = await emailsTo(to);
    expect(await sendEvent(claimed.id, stored!.messageId, to, claimed.sendStartedAt!)).toMatchObject({ processed: true, emailSendId: claimed.id });
    expect(await sendEmail(publishing, welcome(to, key))).toEqual({ status: 'sent', emailSendId: claimed.id });
    expect(await sendRow(key)).toMatchObject({ status: 'sent', providerMessageId: stored!.messageId });
    expect(await emailsTo(to)).toHaveLength(1);
  });

  it("events flowing: later sends' events have arrived for a whole window without this one's, so SES never accepted it: sent again once", async () => {
    const to = uniqueAddress('flowed');
    const key = randomUUID();
    await dieDuringProviderCall(publishing, welcome(to, key), false);
    await windowPassed(key);
    const later = await laterSend();
    expect(await sendEvent(later.emailSendId, later.messageId, later.to, new Date())).toMatchObject({ processed: true });

    // the stream has come past the claim, but not yet for a whole window: it looks again when it has
    const early = await sendEmail(publishing, welcome(to, key));
    expect(early).toMatchObject({ status: 'deferred', reason: 'delivery_unknown' });
    const event = await scratch
      .db()
      .selectFrom('emailProviderNotifications')
      .select('receivedAt')
      .where('emailSendId', '=', later.emailSendId)
      .executeTakeFirstOrThrow();
    expect(early.status === 'deferred' && early.retryAt.getTime()).toBeLessThanOrEqual(Math.max(event.receivedAt.getTime() + SETTLE_MS, Date.now() + 1_000));
    expect(await emailsTo(to)).toHaveLength(0);

    await sleep(SETTLE_MS + 100);
    const claimed = await sendRow(key);
    expect(await sendEmail(publishing, welcome(to, key))).toEqual({ status: 'sent', emailSendId: claimed.id });
    const stored = await emailsTo(to);
    expect(stored).toHaveLength(1);
    expect(await sendRow(key)).toMatchObject({ id: claimed.id, status: 'sent', providerMessageId: stored[0]!.messageId });
    expect(await sendEmail(publishing, welcome(to, key))).toEqual({ status: 'sent', emailSendId: claimed.id });
    expect(await emailsTo(to)).toHaveLength(1);
  });

  it('quiet: SES accepted nothing since the claim, so no event could have come; past the window it is sent again under the same row', async () => {
    const to = uniqueAddress('quiet');
    const key = randomUUID();
    await dieDuringProviderCall(publishing, welcome(to, key), false);
    const claimed = await windowPassed(key);
    expect(await emailsTo(to)).toHaveLength(0);
    const retry = await sendEmail(publishing, welcome(to, key));
    expect(retry).toEqual({ status: 'sent', emailSendId: claimed.id });
    const stored = await emailsTo(to);
    expect(stored).toHaveLength(1);
    expect(await sendRow(key)).toMatchObject({ id: claimed.id, status: 'sent', providerMessageId: stored[0]!.messageId });
  });

  it("quiet, a claim of the batch sender (PostgreSQL's now(), in microseconds): sent again, not deferred for good", async () => {
    const to = uniqueAddress('quiet-batch');
    const key = randomUUID();
    await dieDuringProviderCall(publishing, welcome(to, key), false);
    // as send-email-batch.ts claims: `send_started_at = now()`, finer than a Date keeps
    await sql`update email_sends set send_started_at = date_trunc('second', now()) - interval '5 seconds' + interval '123456 microseconds'
      where idempotency_key = ${key}`.execute(scratch.db());
    const claimed = await sendRow(key);
    expect(await sendEmail(publishing, welcome(to, key))).toEqual({ status: 'sent', emailSendId: claimed.id });
    expect(await emailsTo(to)).toHaveLength(1);
  });

  it('no event of any later send for over an hour: no event can settle it any more, so the delivery policy decides (dropped, at most once)', async () => {
    const to = uniqueAddress('stalled');
    const key = randomUUID();
    await dieDuringProviderCall(publishing, welcome(to, key), false);
    await laterSend();
    const claimedAgo = (ms: number) =>
      sql`update email_sends set send_started_at = now() - ${`${ms} milliseconds`}::interval where idempotency_key = ${key}`.execute(scratch.db());
    // within the hour, the same state waits for the events
    await claimedAgo(HOUR_MS / 2);
    expect(await sendEmail(publishing, welcome(to, key))).toMatchObject({ status: 'deferred', reason: 'delivery_unknown' });
    await claimedAgo(2 * HOUR_MS);

    const retry = await sendEmail(publishing, welcome(to, key));
    expect(retry).toMatchObject({ status: 'failed', dropped: true });
    expect(await sendRow(key)).toMatchObject({ status: 'unknown_dropped' });
    expect(await emailsTo(to)).toHaveLength(0);
  });
});
