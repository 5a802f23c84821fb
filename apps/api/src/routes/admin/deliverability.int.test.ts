import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryPolicy } from '@waymark/journeys/delivery-policy';
import { startFixtureDns } from '../../../../../test/fixture-dns';
import { openScratchDatabase, type ScratchDatabase } from '../../../../../test/scratch-database';
import { issueApiKey, startTestApi, type TestApi } from '../../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
const HOUR = 3_600_000;

describe('GET /v1/admin/deliverability', () => {
  let api: TestApi;
  let dns: Awaited<ReturnType<typeof startFixtureDns>>;
  let readKey: string;
  let ingestKey: string;
  // the 24 h rates count every send in the database: a scratch one, so other files' sends do not count
  let scratch: ScratchDatabase;

  beforeAll(async () => {
    scratch = await openScratchDatabase();
    // a zone without the sender's records: SPF and DMARC fail; SES is the shared emulator, which lacks GetAccount
    dns = await startFixtureDns({ 'waymark.local': { txt: ['some-verification=1'] } });
    // breaker settings away from their defaults, so the answer can only have them from this api's config and policy
    api = await startTestApi(
      { ADMIN_API_KEY: LEGACY, DNS_RESOLVER: dns.address, DATABASE_URL: scratch.url, REPUTATION_COOLDOWN_HOURS: '7.5', REPUTATION_WINDOW_HOURS: '36' },
      { deliveryPolicy: { ...deliveryPolicy, reputation: { pauseComplaintRate: 0.004 } } },
    );
    readKey = await issueApiKey(api, LEGACY, 'deliverability-reader', ['read']);
    ingestKey = await issueApiKey(api, LEGACY, 'deliverability-producer', ['ingest']);
    const run = randomUUID().slice(0, 8);
    const send = (to: string, category: string, sentAt: Date) =>
      sql<{ id: string }>`insert into email_sends (template_key, from_email, to_email, category, status, sent_at)
        values ('fixture', 'tests@waymark.local', ${to}, ${category}, 'sent', ${sentAt}) returning id`.execute(api.deps.db);
    const anHourAgo = new Date(Date.now() - HOUR);
    // marketing to Gmail: 200 sends, one drew a complaint (kept as SES's event): 0.5 %
    const gmail = await Promise.all(Array.from({ length: 200 }, (_, n) => send(`reader${n}.${run}@gmail.com`, 'newsletter', anHourAgo)));
    await sql`insert into email_provider_notifications (message_id, notification_type, event_type, email_send_id)
      values (${`fixture-${run}`}, 'complained', 'Complaint', ${gmail[0]!.rows[0]!.id})`.execute(api.deps.db);
    // transactional to a company's domain: clean; older than 24 h: not counted
    for (let n = 0; n < 20; n += 1) await send(`buyer${n}.${run}@example.com`, 'transactional', anHourAgo);
    await send(`old.${run}@gmail.com`, 'newsletter', new Date(Date.now() - 30 * HOUR));
    // left everything two hours ago, then got a newsletter (late) and a receipt (required: allowed)
    await sql`insert into email_preferences (email, unsubscribed_all, categories, created_at, updated_at)
      values (${`left.${run}@example.com`}, true, '{}'::jsonb, ${new Date(Date.now() - 2 * HOUR)}, ${new Date(Date.now() - 2 * HOUR)})`.execute(api.deps.db);
    await send(`left.${run}@example.com`, 'newsletter', anHourAgo);
    await send(`left.${run}@example.com`, 'transactional', anHourAgo);
  });
  afterAll(async () => {
    await api?.close();
    await dns?.close();
    await scratch?.release();
  });

  it('answers the checks (pass, warn or fail with a fix) and the breaker, ok below its minimum sends', async () => {
    const answer = await api.request('GET', '/v1/admin/deliverability', { token: readKey });
    expect(answer.status).toBe(200);
    // 200 marketing sends to gmail are under REPUTATION_MIN_SENDS (500): counted, not judged
    expect(answer.body.breaker.every((row: { state: string }) => row.state === 'ok')).toBe(true);
    // journeys/delivery-policy.ts sets no warm-up ramp
    expect(answer.body.warmup).toBeNull();
    const check = (id: string) => answer.body.checks.find((item: { id: string }) => item.id === id);
    expect(check('dns.spf')).toMatchObject({ status: 'fail', detail: 'waymark.local publishes no SPF record', fix: expect.stringContaining('v=spf1') });
    expect(check('dns.dmarc')).toMatchObject({ status: 'fail', fix: expect.stringContaining('_dmarc.waymark.local') });
    // a source that cannot be read is a warning that says so, not an error of the request
    expect(check('ses.account.status')).toMatchObject({ status: 'warn', detail: expect.stringContaining('could not read the SES account (GetAccount)') });
    expect(check('sending.public-url')).toMatchObject({ status: 'warn', detail: expect.stringContaining('(fine outside production)') });
    expect(check('sending.unsubscribes')).toMatchObject({
      status: 'fail',
      detail: '1 email in the last 24 h went to an address after it had unsubscribed from the category or was suppressed',
    });
    expect(check('rates.provider.gmail')).toEqual({
      id: 'rates.provider.gmail',
      status: 'fail',
      detail: expect.stringMatching(/^mail to gmail: 200 sent in 24 h, 0 bounced \(0\.00 %\), 1 complained \(0\.50 %\): over SES's pause threshold/),
      fix: expect.any(String),
    });
    // 1 in 201: over SES's review threshold (0.1 %), under its pause threshold (0.5 %)
    expect(check('rates.group.marketing')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining("marketing mail: 201 sent in 24 h, 0 bounced (0.00 %), 1 complained (0.50 %): over SES's review"),
    });
    expect(check('rates.group.transactional')).toMatchObject({
      status: 'pass',
      detail: 'transactional mail: 21 sent in 24 h, 0 bounced (0.00 %), 0 complained (0.00 %)',
    });
    expect(check('rates.provider.other')).toMatchObject({ status: 'pass', detail: expect.stringContaining('mail to other: 22 sent in 24 h') });
    for (const item of answer.body.checks as { status: string; fix: string | null }[]) expect(item.fix === null).toBe(item.status === 'pass');
  });

  it("says the breaker's settings in force: REPUTATION_* of the config and the policy's thresholds over the defaults", async () => {
    const answer = await api.request('GET', '/v1/admin/deliverability', { token: readKey });
    expect(answer.status).toBe(200);
    expect(answer.body.breakerSettings).toEqual({
      cooldownHours: 7.5,
      windowHours: 36,
      minSends: 500,
      thresholds: { slowComplaintRate: 0.001, slowBounceRate: 0.04, pauseComplaintRate: 0.004, pauseBounceRate: 0.08 },
    });
  });

  it('needs the read scope', async () => {
    expect((await api.request('GET', '/v1/admin/deliverability')).status).toBe(401);
    expect((await api.request('GET', '/v1/admin/deliverability', { token: ingestKey })).status).toBe(403);
  });
});
