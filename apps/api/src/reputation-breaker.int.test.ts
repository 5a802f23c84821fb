import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBroadcastStep } from '@waymark/core/broadcasts/broadcast-run';
import { createBroadcast } from '@waymark/core/broadcasts/broadcasts';
import { breakerReport } from '@waymark/core/deliverability/breaker';
import { deliverJourneyEmail } from '@waymark/core/journeys/deliver-journey-email';
import { startSesEventPublisher, type SesEventPublisher } from '../../../scripts/ses-events/publisher';
import { emailsTo, waitFor } from '../../../test/email-emulator';
import { welcomeJourneyEmail } from '../../../test/journey-states';
import { openScratchDatabase, type ScratchDatabase } from '../../../test/scratch-database';
import { seedList } from '../../../test/seed-list';
import { integrationEnv } from '../../../test/test-env';
import { issueApiKey, startTestApi, type TestApi } from '../../../test/test-api';

const SECRET = `whsec-${randomUUID()}`;
const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/**
 * The reputation breaker end to end (docs/email.md, "Reputation breaker"): a broadcast's mail goes
 * through the local stack's SES event publisher to SES's mailbox simulator, whose Delivery and
 * Complaint events come back to the webhook; nothing is counted by hand. Its own scratch database:
 * a tripped breaker holds marketing mail to every address of its provider, which must not reach
 * the other test files sharing the integration database.
 */
describe('the reputation breaker on the local stack', () => {
  let publisher: SesEventPublisher;
  let api: TestApi;
  let scratch: ScratchDatabase;
  let adminKey: string;
  let readKey: string;
  let ingestKey: string;
  const run = randomUUID().slice(0, 8);
  const simulator = (mailbox: string, label: string) => `${mailbox}+${run}-${label}@simulator.amazonses.com`;
  const configurationSet = `waymark-breaker-${run}`;

  beforeAll(async () => {
    scratch = await openScratchDatabase();
    publisher = await startSesEventPublisher({ emulatorUrl: integrationEnv().SES_ENDPOINT });
    api = await startTestApi({
      DATABASE_URL: scratch.url,
      ADMIN_API_KEY: LEGACY,
      SES_ENDPOINT: publisher.url,
      SES_CONFIGURATION_SET: configurationSet,
      SES_EVENT_PUBLISHING: 'true',
      EMAIL_PROVIDER_WEBHOOK_SECRET: SECRET,
      EMAIL_PROVIDER_SNS_DEV_CERT_URL: publisher.certificateUrlPrefix,
      REPUTATION_MIN_SENDS: '100',
    });
    publisher.subscribe(configurationSet, `http://sns:${SECRET}@${new URL(api.url).host}/v1/webhooks/email-provider`);
    adminKey = await issueApiKey(api, LEGACY, 'breaker-admin', ['full-admin']);
    readKey = await issueApiKey(api, LEGACY, 'breaker-read', ['read']);
    ingestKey = await issueApiKey(api, LEGACY, 'breaker-ingest', ['ingest']);
  }, 60_000);
  afterAll(async () => {
    await publisher?.idle();
    await api?.close();
    await publisher?.close();
    await scratch?.release();
  });

  const otherMarketing = async () =>
    (await breakerReport(api.deps.reputation, new Date())).find((row) => row.group === 'marketing' && row.provider === 'other');

  it('a broadcast drawing 1 % complaints pauses marketing mail to that provider; transactional mail flows; resume sends the held mail once', async () => {
    const db = api.deps.db;
    const rule = await db
      .insertInto('alertRules')
      .values({
        name: `complaints ${run}`,
        type: 'high_complaint_rate',
        threshold: 0.001,
        channel: 'email',
        channelConfig: JSON.stringify({ to: `ops-${run}@waymark-test.example` }),
      })
      .returning('id')
      .executeTakeFirstOrThrow();

    // 300 deliveries and 3 complaints: 1 % over 303 sends, past the 0.3 % pause threshold, with REPUTATION_MIN_SENDS=100
    const people = [
      ...Array.from({ length: 300 }, (_, i) => ({ email: simulator('success', `b${i}`) })),
      ...Array.from({ length: 3 }, (_, i) => ({ email: simulator('complaint', `c${i}`) })),
    ];
    const { listKey } = await seedList(db, people);
    const broadcast = await createBroadcast(
      { db, templates: api.deps.email.templates, categories: api.deps.categories },
      { name: `Breaker ${run}`, templateKey: 'reengage-we-miss-you', category: 'product-updates', audience: { listKey }, data: {} },
      null,
    );
    await db.updateTable('broadcasts').set({ status: 'sending', sendRequestedAt: new Date() }).where('id', '=', broadcast.id).execute();
    // the run's steps by hand (no workflow): this api's send path goes through the event publisher
    const steps = { email: api.deps.email, defaultTimeZone: 'UTC' };
    for (
      let step = await runBroadcastStep(steps, broadcast.id, new Date());
      step.kind === 'next';
      step = await runBroadcastStep(steps, broadcast.id, new Date())
    );
    expect((await db.selectFrom('broadcasts').select('status').where('id', '=', broadcast.id).executeTakeFirstOrThrow()).status).toBe('sent');

    const paused = await waitFor(
      async () => {
        const row = await otherMarketing();
        // every event in: the pause itself may come with the first complaint past REPUTATION_MIN_SENDS,
        // and on a loaded machine deliveries may still trail the complaints
        return row?.state === 'paused' && row.sends === 303 && Math.round(row.complaintRate * row.sends) === 3 ? row : undefined;
      },
      { timeoutMs: 60_000, what: 'marketing/other to be paused, its 303 deliveries and three complaints counted' },
    );
    expect(paused).toMatchObject({ group: 'marketing', provider: 'other', sends: 303 });
    expect(paused.complaintRate).toBeCloseTo(3 / 303, 5);

    // an alert on the complaint-rate rule, an audit row of Waymark's own
    const alert = await waitFor(() => db.selectFrom('alertHistory').selectAll().where('ruleId', '=', rule.id).executeTakeFirst(), { what: 'the alert' });
    expect(alert.currentValue).toBeGreaterThanOrEqual(0.003);
    const audit = await db.selectFrom('auditLogs').selectAll().where('resource', '=', 'deliverability').where('action', '=', 'pause').execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorType: 'system', resourceId: 'marketing/other' });

    // a journey email in a marketing category to that provider is held, and says why
    const to = simulator('success', 'journey');
    const input = await welcomeJourneyEmail(db, to, run);
    expect(await deliverJourneyEmail(api.deps.email, input)).toMatchObject({ status: 'deferred', reason: 'reputation' });
    const held = await db.selectFrom('journeyLogs').select(['action', 'detail']).where('journeyStateId', '=', input.stateId).execute();
    expect(held).toEqual([{ action: 'held', detail: expect.objectContaining({ reason: 'reputation', provider: 'other' }) }]);

    // mail the person asked for flows
    const receipt = await api.request('POST', '/v1/emails', {
      token: ingestKey,
      body: {
        templateKey: 'order-receipt',
        to: simulator('success', 'receipt'),
        data: { orderId: 'A-1', items: [{ name: 'Pro', quantity: 1, price: 29 }], currency: 'USD', orderUrl: 'https://example.com/o/A-1' },
      },
    });
    expect(receipt.status, receipt.text).toBe(202);
    expect(receipt.body.status).toBe('sent');
    // a caller's marketing send waits too
    const promo = await api.request('POST', '/v1/emails', { token: ingestKey, body: { templateKey: 'welcome', to: simulator('success', 'promo') } });
    expect(promo.body).toMatchObject({ status: 'deferred', reason: 'reputation' });

    // resume: full-admin only, and a clear 400 for half a key
    expect((await api.request('POST', '/v1/admin/deliverability/resume', { token: readKey, body: {} })).status).toBe(403);
    expect((await api.request('POST', '/v1/admin/deliverability/resume', { token: adminKey, body: { group: 'marketing' } })).status).toBe(400);
    const resumed = await api.request('POST', '/v1/admin/deliverability/resume', { token: adminKey, body: { group: 'marketing', provider: 'other' } });
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.body).toEqual({ resumed: [{ group: 'marketing', provider: 'other', from: 'paused' }], broadcasts: [] });
    expect((await otherMarketing())?.state).toBe('ok');

    // the held journey email's next look sends it, once
    const sent = await deliverJourneyEmail(api.deps.email, input);
    expect(sent).toMatchObject({ status: 'sent' });
    expect(await deliverJourneyEmail(api.deps.email, input)).toEqual(sent);
    expect(await waitFor(async () => ((await emailsTo(to)).length > 0 ? emailsTo(to) : undefined))).toHaveLength(1);
    // the complaints that tripped it are set aside: the next events do not trip it again
    await waitFor(async () =>
      (await db.selectFrom('emailSends').select('status').where('toEmail', '=', to).executeTakeFirst())?.status === 'delivered' ? true : undefined,
    );
    expect((await otherMarketing())?.state).toBe('ok');
  }, 120_000);
});
