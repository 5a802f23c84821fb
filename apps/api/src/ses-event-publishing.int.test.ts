import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEmail } from '@waymark/core/emails/send-email';
import { checkSendGate } from '@waymark/core/preferences/send-gate';
import type { EmailTransport } from '@waymark/email/ses-transport';
import { startSesEventPublisher, type SesEventPublisher } from '../../../scripts/ses-events/publisher';
import { emailsTo, waitFor } from '../../../test/email-emulator';
import { integrationEnv } from '../../../test/test-env';
import { startTestApi, type TestApi } from '../../../test/test-api';

const SECRET = `whsec-${randomUUID()}`;
const simulator = (mailbox: string) => `${mailbox}+${randomUUID().slice(0, 8)}@simulator.amazonses.com`;

/**
 * The local stack's SES event publishing (scripts/ses-events, started by scripts/stack.sh): the
 * api sends through the publisher in front of the SES emulator, and SES's events come back to its
 * webhook signed as SNS signs them, with the development certificate the api trusts outside
 * production only. No notification here is made by hand.
 */
describe('SES event publishing on the local stack (mailbox simulator → webhook)', () => {
  let publisher: SesEventPublisher;
  let api: TestApi;
  const configurationSet = `waymark-test-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    publisher = await startSesEventPublisher({ emulatorUrl: integrationEnv().SES_ENDPOINT });
    api = await startTestApi({
      SES_ENDPOINT: publisher.url,
      SES_CONFIGURATION_SET: configurationSet,
      SES_EVENT_PUBLISHING: 'true',
      EMAIL_PROVIDER_WEBHOOK_SECRET: SECRET,
      EMAIL_PROVIDER_SNS_DEV_CERT_URL: publisher.certificateUrlPrefix,
    });
    publisher.subscribe(configurationSet, `http://sns:${SECRET}@${new URL(api.url).host}/v1/webhooks/email-provider`);
  });
  afterAll(async () => {
    await publisher?.idle();
    await api?.close();
    await publisher?.close();
  });

  const send = async (to: string) => {
    const result = await sendEmail(api.deps.email, { templateKey: 'welcome', to, idempotencyKey: randomUUID() });
    if (result.status !== 'sent') throw new Error(`not sent: ${JSON.stringify(result)}`);
    return result.emailSendId;
  };
  const row = (id: string) => api.deps.db.selectFrom('emailSends').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const rowOnceStatus = (id: string, status: string) =>
    waitFor(
      async () => {
        const current = await row(id);
        return current.status === status ? current : undefined;
      },
      { timeoutMs: 10_000, what: `send ${id} ${status}` },
    );

  it('a mail to complaint@simulator.amazonses.com suppresses that address within 10 s', async () => {
    const to = simulator('complaint');
    const id = await send(to);
    const gate = await waitFor(
      async () => {
        const verdict = await checkSendGate(api.deps.db, to, 'journey');
        return verdict.allowed ? undefined : verdict;
      },
      { timeoutMs: 10_000, what: 'the complaint to suppress the address' },
    );
    expect(gate).toEqual({ allowed: false, reason: 'suppressed' });
    const complained = await rowOnceStatus(id, 'complained');
    const [stored] = await emailsTo(to);
    expect(complained).toMatchObject({ providerMessageId: stored!.messageId });
    expect(complained.deliveredAt).toBeInstanceOf(Date);
    // recorded per send, with SES's own event types: what a reputation breaker counts
    const notifications = await api.deps.db
      .selectFrom('emailProviderNotifications')
      .select(['eventType', 'notificationType'])
      .where('emailSendId', '=', id)
      .execute();
    expect(notifications.map((notification) => notification.eventType).sort()).toEqual(['Complaint', 'Delivery', 'Send']);
  });

  it.each([
    ['bounce', 'bounced', 'General'],
    ['suppressionlist', 'bounced', 'OnAccountSuppressionList'],
  ])('%s@ bounces for good: the send is bounced and the hard bounce counted', async (mailbox, status) => {
    const to = simulator(mailbox);
    const id = await send(to);
    await rowOnceStatus(id, status);
    const preference = await waitFor(() => api.deps.db.selectFrom('emailPreferences').selectAll().where('email', '=', to).executeTakeFirst(), {
      timeoutMs: 10_000,
    });
    expect(preference).toMatchObject({ bounceCount: 1 });
  });

  it.each(['success', 'ooto'])('%s@ is delivered', async (mailbox) => {
    const id = await send(simulator(mailbox));
    expect((await rowOnceStatus(id, 'delivered')).deliveredAt).toBeInstanceOf(Date);
  });

  it("an attempt that dies during the provider call after SES accepted it: SES's Send event settles the send, and the retry sends nothing", async () => {
    const to = simulator('success');
    const key = randomUUID();
    const dying: EmailTransport = {
      send: async (message) => {
        await api.deps.email.transport.send(message);
        return new Promise<never>(() => undefined);
      },
    };
    void sendEmail({ ...api.deps.email, transport: dying }, { templateKey: 'welcome', to, idempotencyKey: key });
    const [stored] = await waitFor(async () => {
      const found = await emailsTo(to);
      return found.length > 0 ? found : undefined;
    });
    const settled = await waitFor(async () => {
      const current = await api.deps.db.selectFrom('emailSends').selectAll().where('idempotencyKey', '=', key).executeTakeFirst();
      return current?.providerMessageId === null || current === undefined ? undefined : current;
    });
    expect(settled).toMatchObject({ providerMessageId: stored!.messageId });
    expect(await sendEmail(api.deps.email, { templateKey: 'welcome', to, idempotencyKey: key })).toEqual({ status: 'sent', emailSendId: settled.id });
    expect(await emailsTo(to)).toHaveLength(1);
  });
});
