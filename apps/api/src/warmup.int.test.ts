import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBroadcastStep } from '@waymark/core/broadcasts/broadcast-run';
import { createBroadcast } from '@waymark/core/broadcasts/broadcasts';
import { nextWarmupDay } from '@waymark/core/deliverability/warmup';
import { deliverJourneyEmail } from '@waymark/core/journeys/deliver-journey-email';
import { defineDeliveryPolicy } from '@waymark/journey';
import { seedJourneyEmailStep } from '../../../test/journey-states';
import { openScratchDatabase, type ScratchDatabase } from '../../../test/scratch-database';
import { seedList } from '../../../test/seed-list';
import { issueApiKey, startTestApi, type TestApi } from '../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
/** three marketing sends today, nine tomorrow */
const policy = defineDeliveryPolicy({ warmup: { startPerDay: 3, growth: 3, until: 100 } });
/** seven people who never engaged (one of them opened by a machine), and three who did */
const PEOPLE = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'clicker', 'opener', 'once'];

/**
 * The warm-up ramp on the send paths (docs/email.md, "Warm-up"): a broadcast over today's
 * allowance sends the allowance, most engaged first, and the rest the next day; a journey send
 * past it (or a caller's POST /v1/emails) waits for the next day with reason `warmup`. Its own scratch database: the ramp's days
 * are the installation's, and would cap the other files' marketing mail.
 */
describe('the warm-up ramp on broadcasts and journeys', () => {
  let api: TestApi;
  let scratch: ScratchDatabase;
  let readKey: string;
  let ingestKey: string;
  const run = randomUUID().slice(0, 8);
  const address = (name: string) => `warmup-${run}-${name}@waymark-test.example`;

  beforeAll(async () => {
    scratch = await openScratchDatabase();
    api = await startTestApi({ DATABASE_URL: scratch.url, ADMIN_API_KEY: LEGACY }, { deliveryPolicy: policy });
    readKey = await issueApiKey(api, LEGACY, 'warmup-read', ['read']);
    ingestKey = await issueApiKey(api, LEGACY, 'warmup-ingest', ['ingest']);
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await scratch?.release();
  });

  it('sends a broadcast over the allowance over two days, most engaged first; a journey send past it waits with reason warmup', async () => {
    const db = api.deps.db;
    const { listKey } = await seedList(
      db,
      PEOPLE.map((name) => ({ email: address(name) })),
    );
    // earlier mail: `clicker` opened and clicked one (as a person), `opener` opened two, `once` one, a machine opened `a`'s
    const earlier = (to: string, humanOpened: boolean, humanClicked: boolean, opened = humanOpened) =>
      db
        .insertInto('emailSends')
        .values({
          templateKey: 'welcome',
          fromEmail: 'tests@waymark.local',
          toEmail: to,
          status: 'delivered',
          data: '{}',
          openedAt: opened ? new Date() : null,
          humanOpenedAt: humanOpened ? new Date() : null,
          humanClickedAt: humanClicked ? new Date() : null,
        })
        .execute();
    await earlier(address('clicker'), true, true);
    await earlier(address('opener'), true, false);
    await earlier(address('opener'), true, false);
    await earlier(address('once'), true, false);
    await earlier(address('a'), false, false, true);

    const broadcast = await createBroadcast(
      { db, templates: api.deps.email.templates, categories: api.deps.categories },
      { name: `Warm-up ${run}`, templateKey: 'reengage-we-miss-you', category: 'product-updates', audience: { listKey }, data: {} },
      null,
    );
    await db.updateTable('broadcasts').set({ status: 'sending', sendRequestedAt: new Date() }).where('id', '=', broadcast.id).execute();
    const steps = { email: api.deps.email, defaultTimeZone: 'UTC' };
    const today = new Date();
    const tomorrow = nextWarmupDay(today);
    let step = await runBroadcastStep(steps, broadcast.id, today);
    while (step.kind === 'next') step = await runBroadcastStep(steps, broadcast.id, today);
    // today's three went, the broadcast waits for tomorrow's allowance and says so
    expect(step).toEqual({ kind: 'wait', until: tomorrow.getTime() });
    const sentTo = async () =>
      (await db.selectFrom('emailSends').select('toEmail').where('broadcastId', '=', broadcast.id).execute()).map((row) => row.toEmail).sort();
    // the three who engaged as people, not the snapshot's shuffle (1 chance in 120 of these three) nor the machine's open
    expect(await sentTo()).toEqual(['clicker', 'once', 'opener'].map(address));
    const shown = await api.request('GET', `/v1/admin/broadcasts/${broadcast.id}`, { token: readKey });
    expect(shown.body.broadcast).toMatchObject({ status: 'sending', warmupUntil: tomorrow.toISOString(), progress: { done: 3, total: 10 } });

    // a journey email in a marketing category: today's allowance is spent, so it waits for tomorrow's
    const to = address('journey');
    await db
      .insertInto('contacts')
      .values({ externalId: `u-${run}`, email: to, properties: '{}', firstSeenAt: new Date(), lastSeenAt: new Date() })
      .execute();
    const input = await seedJourneyEmailStep(db, { journeyId: 'welcome-series', userId: `u-${run}`, to, run });
    expect(await deliverJourneyEmail(api.deps.email, input)).toEqual({ status: 'deferred', reason: 'warmup', retryAt: tomorrow });
    const held = await db.selectFrom('journeyLogs').select(['action', 'detail']).where('journeyStateId', '=', input.stateId).execute();
    expect(held).toEqual([{ action: 'held', detail: expect.objectContaining({ reason: 'warmup', until: tomorrow.toISOString() }) }]);
    const story = await api.request('GET', `/v1/admin/contacts/${input.userId}/explain?journeyId=welcome-series&templateKey=welcome`, { token: readKey });
    expect(JSON.stringify(story.body)).toContain("held by the warm-up ramp: today's marketing allowance is spent");
    // a caller's own marketing send waits too; mail the person asked for does not
    const promo = await api.request('POST', '/v1/emails', { token: ingestKey, body: { templateKey: 'welcome', to: address('promo') } });
    expect(promo.body).toMatchObject({ status: 'deferred', reason: 'warmup', retryAt: tomorrow.toISOString() });
    const receipt = await api.request('POST', '/v1/emails', {
      token: ingestKey,
      body: {
        templateKey: 'order-receipt',
        to: address('receipt'),
        data: { orderId: 'A-1', items: [{ name: 'Pro', quantity: 1, price: 29 }], currency: 'USD', orderUrl: 'https://example.com/o/A-1' },
      },
    });
    expect(receipt.body.status, receipt.text).toBe('sent');

    // the studio's page: the plan and today's use
    const report = await api.request('GET', '/v1/admin/deliverability', { token: readKey });
    expect(report.status).toBe(200);
    expect(report.body.warmup).toMatchObject({ startPerDay: 3, growth: 3, until: 100, complete: false, today: { allowance: 3, used: 3 } });
    expect(report.body.warmup.days.map((day: { allowance: number | null }) => day.allowance)).toEqual([3, 9, 27, 81, null]);

    // tomorrow: the rest of the broadcast goes, and it is done
    const nextDay = new Date(tomorrow.getTime() + 60_000);
    step = await runBroadcastStep(steps, broadcast.id, nextDay);
    while (step.kind === 'next') step = await runBroadcastStep(steps, broadcast.id, nextDay);
    expect(step).toEqual({ kind: 'done' });
    expect(await sentTo()).toEqual(PEOPLE.map(address).sort());
    const done = await api.request('GET', `/v1/admin/broadcasts/${broadcast.id}`, { token: readKey });
    expect(done.body.broadcast).toMatchObject({ status: 'sent', warmupUntil: null });
    // each accepted by SES once (the shared emulator's whole mailbox is too large to read per address)
    const statuses = await db.selectFrom('emailSends').select(['status', 'providerMessageId']).where('broadcastId', '=', broadcast.id).execute();
    expect(statuses).toHaveLength(PEOPLE.length);
    for (const row of statuses) expect(row).toEqual({ status: 'sent', providerMessageId: expect.any(String) });
  }, 120_000);
});
