import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROADCAST_SEND_CONCURRENCY } from '@waymark/core/broadcasts/broadcast-chunk';
import type { Db } from '@waymark/core/db/database';
import { expectEachOnce, openCrashStack, storedEmails, type CrashKill, type CrashSendRow, type CrashStack } from '../../test/crash-stack';
import { eventually } from '../../test/eventually';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
const CONTACTS = 5_000;
/** of the CONTACTS, this many of each kind the send gate or the address rules skip */
const SKIPPED = { unsubscribedAll: 10, unsubscribedCategory: 10, suppressed: 10, noEmail: 10 };
const ELIGIBLE = CONTACTS - Object.values(SKIPPED).reduce((sum, n) => sum + n, 0);
/** the share of the eligible contacts sent when each SIGKILL lands: the worker three times, the api once */
const KILLS: readonly CrashKill[] = [
  { at: 0.1, target: 'worker' },
  { at: 0.3, target: 'worker' },
  { at: 0.45, target: 'api' },
  { at: 0.65, target: 'worker' },
];
const CATEGORY = 'product-updates';
/** the audience of the second test (the send window), a list of its own */
const WINDOW_RECIPIENTS = 5;
const WORKER_KILLS = KILLS.filter((kill) => kill.target === 'worker').length;
/**
 * the most sends one worker has claimed and not yet recorded sent at once: each of the chunk's
 * lanes holds one send from its claim until its "sent" flush has answered
 */
const SENDS_IN_FLIGHT = BROADCAST_SEND_CONCURRENCY;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The contacts of the run, seeded in SQL: `c<n>@<domain>` for n = 1..CONTACTS. The first few
 * hundred carry the skip reasons (preference rows by address, or no address at all); the rest are
 * the eligible audience. Returns the eligible addresses.
 */
async function seedContacts(db: Db, domain: string): Promise<Set<string>> {
  const address = (n: number) => `c${n}@${domain}`;
  const { unsubscribedAll, unsubscribedCategory, suppressed, noEmail } = SKIPPED;
  const firstEligible = unsubscribedAll + unsubscribedCategory + suppressed + noEmail + 1;
  await sql`insert into contacts (external_id, email, properties, first_seen_at, last_seen_at, created_at, updated_at)
    select 'crash-' || g, case when g < ${firstEligible - noEmail} or g >= ${firstEligible} then 'c' || g || '@' || ${domain} end,
      jsonb_build_object('firstName', 'Reader ' || g), now(), now(), now(), now()
    from generate_series(1, ${CONTACTS}::int) g`.execute(db);
  const preference = (from: number, count: number, columns: { unsubscribed_all?: boolean; suppressed?: boolean; categories?: Record<string, boolean> }) =>
    sql`insert into email_preferences (user_id, email, unsubscribed_all, suppressed, suppression_reason, categories, created_at, updated_at)
      select 'crash-' || g, 'c' || g || '@' || ${domain}, ${columns.unsubscribed_all ?? false}, ${columns.suppressed ?? false},
        ${columns.suppressed === true ? 'bounce' : null}, ${JSON.stringify(columns.categories ?? {})}::jsonb, now(), now()
      from generate_series(${from}::int, ${from + count - 1}::int) g`.execute(db);
  await preference(1, unsubscribedAll, { unsubscribed_all: true });
  await preference(1 + unsubscribedAll, unsubscribedCategory, { categories: { [CATEGORY]: false } });
  await preference(1 + unsubscribedAll + unsubscribedCategory, suppressed, { suppressed: true });
  await sql`analyze contacts`.execute(db);
  return new Set(Array.from({ length: CONTACTS - firstEligible + 1 }, (_, i) => address(firstEligible + i)));
}

/**
 * docs/broadcasts.md, "How it runs": a broadcast to 5,000 contacts while its worker process is
 * SIGKILLed three times mid-send and its api process once, on a database, task queue and processes
 * of this file's own (test/crash-stack.ts), once with SES event publishing off and once with it on,
 * to the same contacts. Whatever a kill interrupts (a chunk of sends, a continue-as-new, a request),
 * every eligible contact ends with exactly one send row, no contact gets two emails, the provider's
 * store and the rows agree message id for message id, and nothing is parked in the DLQ. A kill
 * inside the provider call leaves a send whose fate its attempt cannot know (docs/email.md,
 * "Exactly once"): with publishing on, SES's own events settle it (or its absence sends it again),
 * so every eligible contact's email is accepted exactly once; with it off, the default policy of a
 * category that is not required drops it (`unknown_dropped`, at most once), counted in the stats.
 */
describe('a broadcast survives worker and api crashes', () => {
  const domain = `${randomUUID().slice(0, 8)}.bcrash.example`;
  let stack: CrashStack | undefined;
  let eligible = new Set<string>();

  beforeAll(async () => {
    stack = await openCrashStack(LEGACY, 'broadcast-crash');
    eligible = await seedContacts(stack.db, domain);
  }, 300_000);

  afterAll(async () => {
    await stack?.close();
  }, 120_000);

  it.each([
    ['off', false],
    ['on', true],
  ])(
    'SES event publishing %s: SIGKILL the worker 3 times and the api once mid-send, 0 DLQ entries, 0 duplicates',
    async (mode, publishing) => {
      const { db, api } = stack!;
      const startedSeconds = Math.floor(Date.now() / 1000) - 1;
      expect(eligible.size).toBe(ELIGIBLE);
      await stack!.usePublishing(publishing);
      await stack!.ensureRunning();
      const subject = `Crash test ${mode} ${domain}`;

      const created = await api('POST', '/v1/admin/broadcasts', {
        token: LEGACY,
        body: {
          name: `crash ${mode} ${domain}`,
          templateKey: 'welcome',
          category: CATEGORY,
          audience: { all: true },
          subject,
          data: { productName: 'Waymark' },
        },
      });
      expect(created.status, created.text).toBe(201);
      const id: string = created.body.broadcast.id;
      // a client that sends twice at once (a retry racing its first try): one start, one 409
      const sends = await Promise.all([1, 2].map(() => api('POST', `/v1/admin/broadcasts/${id}/send`, { token: LEGACY })));
      expect(sends.map((send) => send.status).sort()).toEqual([202, 409]);

      const sent = async () => {
        const row = await sql<{ n: number }>`select count(*)::int as n from email_sends where broadcast_id = ${id} and sent_at is not null`.execute(db);
        return row.rows[0]!.n;
      };
      const sentAtKill = await stack!.killDuring(sent, ELIGIBLE, KILLS, async () => {
        // the client retries its send against the restarted api: refused, nothing starts again
        const retried = await api('POST', `/v1/admin/broadcasts/${id}/send`, { token: LEGACY });
        expect(retried.status).toBe(409);
      });
      // every kill landed while the broadcast was still sending
      expect(sentAtKill).toHaveLength(KILLS.length);
      for (const n of sentAtKill) expect(n).toBeLessThan(ELIGIBLE);

      const done = await eventually(
        async () => (await api('GET', `/v1/admin/broadcasts/${id}`, { token: LEGACY })).body?.broadcast,
        (broadcast) => broadcast?.status === 'sent' || broadcast?.status === 'failed',
        { timeoutMs: 900_000, intervalMs: 1_000, what: 'the broadcast to finish' },
      );
      expect(done.status).toBe('sent');

      // still the same a few seconds on: no orphaned attempt of a killed worker sends late
      await sleep(3_000);
      const rows = (
        await sql<CrashSendRow>`
        select id, to_email as "toEmail", provider_message_id as "messageId", status
        from email_sends where broadcast_id = ${id}`.execute(db)
      ).rows;
      const stored = (await storedEmails(domain, startedSeconds)).filter((email) => email.subject === subject);
      const outcome = await expectEachOnce(db, { rows, stored, expected: eligible, publishing });
      // without publishing, only the sends in flight at the worker kills may be dropped
      expect(outcome.dropped).toBeLessThanOrEqual(WORKER_KILLS * SENDS_IN_FLIGHT);
      console.info(
        `broadcast crash, publishing ${mode}: ${outcome.accepted} accepted exactly once, ${outcome.dropped} interrupted inside the provider call and dropped (${outcome.droppedButAccepted} of them had reached SES; with publishing, none is dropped: SES's event settles it or it is sent again), 0 in the DLQ; kills at ${sentAtKill.join(', ')} sent`,
      );

      expect(done.stats).toMatchObject({
        sent: outcome.accepted,
        failed: 0,
        unknownDropped: outcome.dropped,
        skipped: { unsubscribed: SKIPPED.unsubscribedAll + SKIPPED.unsubscribedCategory, suppressed: SKIPPED.suppressed, noEmail: SKIPPED.noEmail },
      });
    },
    1_800_000,
  );

  it('an api that dies between taking a broadcast out of draft and starting its run: the retried send starts the run', async () => {
    await stack!.ensureRunning();
    const { db, api } = stack!;
    const run = randomUUID().slice(0, 8);
    const listKey = `crash-${run}`;
    await sql`
      with list as (insert into lists (key, name) values (${listKey}, ${listKey}) returning id),
        added as (
          insert into contacts (external_id, email, properties, first_seen_at, last_seen_at, created_at, updated_at)
          select 'window-' || g, 'w' || g || '-' || ${run} || '@' || ${domain}, '{}'::jsonb, now(), now(), now(), now()
          from generate_series(1, ${WINDOW_RECIPIENTS}::int) g
          returning id
        )
      insert into list_memberships (list_id, contact_id, subscribed, updated_at) select list.id, added.id, true, now() from list, added`.execute(db);
    const created = await api('POST', '/v1/admin/broadcasts', {
      token: LEGACY,
      body: { name: `window ${run}`, templateKey: 'welcome', category: CATEGORY, audience: { listKey }, subject: `Window ${run}` },
    });
    expect(created.status, created.text).toBe(201);
    const id: string = created.body.broadcast.id;
    // what `send` writes before it starts the run: the api died right after this statement
    await db.updateTable('broadcasts').set({ status: 'sending', sendRequestedAt: new Date(), updatedAt: new Date() }).where('id', '=', id).execute();

    // the client, seeing no answer, sends again: still 409 (not a draft), but the run is started
    const retried = await api('POST', `/v1/admin/broadcasts/${id}/send`, { token: LEGACY });
    expect(retried.status).toBe(409);
    const done = await eventually(
      async () => (await api('GET', `/v1/admin/broadcasts/${id}`, { token: LEGACY })).body?.broadcast,
      (broadcast) => broadcast?.status === 'sent',
      { timeoutMs: 180_000, intervalMs: 1_000, what: 'the broadcast the retried send started to finish' },
    );
    expect(done.stats.sent).toBe(WINDOW_RECIPIENTS);
  }, 600_000);
});
