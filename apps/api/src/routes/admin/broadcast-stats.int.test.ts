import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROADCAST_CHUNK_SIZE } from '@waymark/core/broadcasts/broadcast-chunk';
import type { BroadcastStats } from '@waymark/core/broadcasts/broadcast-stats';
import type { Db } from '@waymark/core/db/database';
import { duringFirstChunk } from '../../../../../test/during-first-chunk';
import { eventually } from '../../../../../test/eventually';
import { seedList } from '../../../../../test/seed-list';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
/** two chunks: the pause lands after the first, half-way */
const AUDIENCE = 2 * BROADCAST_CHUNK_SIZE;

interface RecountRow {
  variantId: string | null;
  /** 1 on rollup's row of the whole broadcast */
  whole: number;
  sent: string;
  failed: string;
  unsubscribedSkip: string;
  suppressed: string;
  noEmail: string;
  missingData: string;
  frequencyCap: string;
  holdout: string;
  done: string;
  delivered: string;
  bounced: string;
  complained: string;
  humanOpens: string;
  machineOpens: string;
  humanClicks: string;
  machineClicks: string;
  unsubscribed: string;
  unknownDropped: string;
}

/**
 * The stats counted from scratch: every recipient row of the broadcast, its linked send and a
 * preference lookup per sent email (what the read did before the counters of migration 0135).
 * The whole broadcast under `total`, each variant under its id.
 */
async function recount(db: Db, broadcastId: string): Promise<Map<string, { stats: BroadcastStats; done: number }>> {
  const rows = await sql<RecountRow>`
    select r.variant_id as "variantId", grouping(r.variant_id) as whole,
      count(*) filter (where r.status = 'sent') as sent,
      count(*) filter (where r.status = 'failed') as failed,
      count(*) filter (where r.status = 'skipped' and r.reason = 'unsubscribed') as "unsubscribedSkip",
      count(*) filter (where r.status = 'skipped' and r.reason = 'suppressed') as suppressed,
      count(*) filter (where r.status = 'skipped' and r.reason = 'no_email') as "noEmail",
      count(*) filter (where r.status = 'skipped' and r.reason = 'missing_data') as "missingData",
      count(*) filter (where r.status = 'skipped' and r.reason = 'frequency_cap') as "frequencyCap",
      count(*) filter (where r.status = 'skipped' and r.reason = 'holdout') as holdout,
      count(*) filter (where r.status = 'skipped' and r.reason = 'unknown_dropped') as "unknownDropped",
      count(*) filter (where r.status <> 'pending') as done,
      count(e.delivered_at) as delivered,
      count(e.bounced_at) as bounced,
      count(e.complained_at) as complained,
      count(e.human_opened_at) as "humanOpens",
      count(*) filter (where e.opened_at is not null and e.human_opened_at is null) as "machineOpens",
      count(e.human_clicked_at) as "humanClicks",
      count(*) filter (where e.clicked_at is not null and e.human_clicked_at is null) as "machineClicks",
      count(*) filter (where e.sent_at is not null and exists (
        select 1 from email_preferences p
        where lower(p.email) = lower(e.to_email) and p.updated_at >= e.sent_at
          and (p.unsubscribed_all or (p.categories ->> e.category) = 'false')
      )) as unsubscribed
    from broadcast_recipients r
    left join email_sends e on e.id = r.email_send_id and e.broadcast_id = r.broadcast_id
    where r.broadcast_id = ${broadcastId}
    group by rollup (r.variant_id)`.execute(db);
  const result = new Map<string, { stats: BroadcastStats; done: number }>();
  for (const row of rows.rows) {
    const n = (value: string) => Number(value);
    const key = row.whole === 1 ? 'total' : (row.variantId ?? 'none');
    result.set(key, {
      done: n(row.done),
      stats: {
        sent: n(row.sent),
        failed: n(row.failed),
        unknownDropped: n(row.unknownDropped),
        skipped: {
          unsubscribed: n(row.unsubscribedSkip),
          suppressed: n(row.suppressed),
          noEmail: n(row.noEmail),
          missingData: n(row.missingData),
          frequencyCap: n(row.frequencyCap),
          holdout: n(row.holdout),
        },
        delivered: n(row.delivered),
        bounced: n(row.bounced),
        complained: n(row.complained),
        opens: { human: n(row.humanOpens), machine: n(row.machineOpens) },
        clicks: { human: n(row.humanClicks), machine: n(row.machineClicks) },
        unsubscribed: n(row.unsubscribed),
      },
    });
  }
  return result;
}

/**
 * The stats a broadcast's detail and the list answer come from counters kept by triggers
 * (docs/broadcasts.md, "How stats are counted"). After a real broadcast (every skip reason, two
 * variants, a pause and a resume) and engagement written the way the tracking and SES
 * notification paths write it, they must equal a count from scratch, number for number.
 */
describe('broadcast stats counters', () => {
  let api: TestApi;
  let readKey: string;
  let adminKey: string;

  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    readKey = (await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: 'stats-read', scopes: ['read'] } })).body.key;
    adminKey = (await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: 'stats-admin', scopes: ['journey-admin'] } })).body.key;
  });
  afterAll(() => api?.close());

  async function read(id: string) {
    const answer = await api.request('GET', `/v1/admin/broadcasts/${id}`, { token: readKey });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.broadcast as {
      status: string;
      progress: { done: number; total: number };
      stats: BroadcastStats;
      variants: { id: string; stats: BroadcastStats }[];
    };
  }

  async function expectCountersMatchRecount(id: string) {
    const expected = await recount(api.deps.db, id);
    const broadcast = await read(id);
    expect(broadcast.stats).toEqual(expected.get('total')!.stats);
    expect(broadcast.progress.done).toBe(expected.get('total')!.done);
    for (const variant of broadcast.variants) expect(variant.stats, `variant ${variant.id}`).toEqual(expected.get(variant.id)!.stats);
    const listed = await api.request('GET', '/v1/admin/broadcasts?limit=100', { token: readKey });
    const inList = (listed.body.broadcasts as { id: string; stats: BroadcastStats }[]).find((candidate) => candidate.id === id);
    expect(inList?.stats).toEqual(expected.get('total')!.stats);
    return broadcast;
  }

  it('equal a count from scratch through skips, variants, pause/resume, engagement and a later unsubscribe', async () => {
    const db = api.deps.db;
    const run = randomUUID().slice(0, 8);
    const people = Array.from({ length: AUDIENCE }, (_, i) => ({
      email: `bs-${run}-${i}@waymark-test.example`,
      // order-receipt needs orderId: recipient 5 lacks it (missing_data)
      properties: i === 5 ? {} : { orderId: `A-${i}` },
    }));
    const { listKey, contacts } = await seedList(db, people);
    const address = (i: number) => people[i]!.email;
    await db.updateTable('contacts').set({ email: null }).where('id', '=', contacts[0]!.id).execute();
    await db
      .insertInto('emailPreferences')
      .values([
        { email: address(1), unsubscribedAll: true, categories: '{}' },
        { email: address(2), categories: JSON.stringify({ newsletter: false }) },
        { email: address(3), suppressed: true, suppressionReason: 'bounce', categories: '{}' },
      ])
      .execute();
    // a newsletter sent to recipient 4 a moment ago: the newsletter cap (1 per 7 days) skips it
    await db
      .insertInto('emailSends')
      .values({
        templateKey: 'order-receipt',
        fromEmail: 'news@waymark-test.example',
        toEmail: address(4),
        category: 'newsletter',
        status: 'sent',
        sentAt: new Date(),
      })
      .execute();

    const created = await api.request('POST', '/v1/admin/broadcasts', {
      token: adminKey,
      body: {
        name: `Stats ${run}`,
        templateKey: 'order-receipt',
        category: 'newsletter',
        audience: { listKey },
        data: { items: [{ name: 'Seat', quantity: 1, price: 5 }] },
        variants: [
          { id: 'a', subject: 'Join Acme (A)' },
          { id: 'b', subject: 'Join Acme (B)' },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.broadcast.id as string;
    const path = `/v1/admin/broadcasts/${id}`;
    const pause = await duringFirstChunk(db, {
      broadcastId: id,
      emails: people.map((person) => person.email),
      send: async () => expect((await api.request('POST', `${path}/send`, { token: adminKey })).status).toBe(202),
      transition: () => api.request('POST', `${path}/pause`, { token: adminKey }),
    });
    expect(pause.status, pause.text).toBe(200);
    const paused = await expectCountersMatchRecount(id);
    expect(paused.status).toBe('paused');
    // half-way: at most the first chunk and the recipient without an address (skipped when the
    // audience was taken); fewer when sends were kept pending past the send rate
    expect(paused.progress.done).toBeLessThanOrEqual(BROADCAST_CHUNK_SIZE + 1);
    expect((await api.request('POST', `${path}/resume`, { token: adminKey })).status).toBe(200);
    await eventually(
      async () => (await read(id)).status,
      (status) => status === 'sent',
      { timeoutMs: 90_000, what: 'broadcast sent' },
    );

    const sends = await db
      .selectFrom('emailSends')
      .select(['id', 'toEmail'])
      .where('broadcastId', '=', id)
      .where('status', '=', 'sent')
      .orderBy('toEmail')
      .execute();
    expect(sends).toHaveLength(AUDIENCE - 6);
    const ids = sends.map((send) => send.id);
    const at = (from: number, to: number) => ids.slice(from, to);
    // SES notifications, one row per statement, and one statement for many rows
    for (const send of at(0, 5)) await db.updateTable('emailSends').set({ deliveredAt: new Date(), status: 'delivered' }).where('id', '=', send).execute();
    await db.updateTable('emailSends').set({ deliveredAt: new Date(), status: 'delivered' }).where('id', 'in', at(5, 60)).execute();
    await db.updateTable('emailSends').set({ bouncedAt: new Date(), status: 'bounced' }).where('id', 'in', at(60, 63)).execute();
    await db.updateTable('emailSends').set({ complainedAt: new Date() }).where('id', '=', ids[0]!).execute();
    // a scanner's open only; a scanner's open then the reader's; the reader's only
    await db.updateTable('emailSends').set({ openedAt: new Date() }).where('id', 'in', at(0, 9)).execute();
    await db.updateTable('emailSends').set({ humanOpenedAt: new Date() }).where('id', 'in', at(6, 9)).execute();
    await db.updateTable('emailSends').set({ openedAt: new Date(), humanOpenedAt: new Date() }).where('id', 'in', at(9, 12)).execute();
    // a repeated hit changes no count
    await db.updateTable('emailSends').set({ openedAt: new Date() }).where('id', '=', ids[9]!).execute();
    await db.updateTable('emailSends').set({ clickedAt: new Date() }).where('id', 'in', at(20, 25)).execute();
    await db.updateTable('emailSends').set({ clickedAt: new Date(), humanClickedAt: new Date() }).where('id', 'in', at(23, 27)).execute();
    // after sending: one leaves the newsletter, one everything, one only another category
    await db
      .insertInto('emailPreferences')
      .values([
        { email: sends[30]!.toEmail, categories: JSON.stringify({ newsletter: false }) },
        { email: sends[31]!.toEmail, unsubscribedAll: true, categories: '{}' },
        { email: sends[32]!.toEmail, categories: JSON.stringify({ 'product-updates': false }) },
      ])
      .execute();

    const done = await expectCountersMatchRecount(id);
    expect(done.progress).toEqual({ done: AUDIENCE, total: AUDIENCE });
    expect(done.stats).toEqual({
      sent: AUDIENCE - 6,
      failed: 0,
      unknownDropped: 0,
      skipped: { unsubscribed: 2, suppressed: 1, noEmail: 1, missingData: 1, frequencyCap: 1, holdout: 0 },
      delivered: 60,
      bounced: 3,
      complained: 1,
      opens: { human: 6, machine: 6 },
      clicks: { human: 4, machine: 3 },
      unsubscribed: 2,
    });
    expect(done.variants.map((variant) => variant.stats.sent).reduce((a, b) => a + b)).toBe(AUDIENCE - 6);

    // a deleted contact's recipient row goes, and its counts with it
    const gone = await db
      .selectFrom('broadcastRecipients')
      .select('contactId')
      .where('broadcastId', '=', id)
      .where('emailSendId', '=', ids[9]!)
      .executeTakeFirstOrThrow();
    await db.deleteFrom('contacts').where('id', '=', gone.contactId).execute();
    const afterDelete = await expectCountersMatchRecount(id);
    expect(afterDelete.stats.opens.human).toBe(5);

    // a deleted send (a purge of old email_sends rows) takes its engagement counts along
    await db.deleteFrom('emailSends').where('id', '=', ids[1]!).execute();
    const afterSendDelete = await expectCountersMatchRecount(id);
    expect(afterSendDelete.stats.delivered).toBe(58);
    expect(afterSendDelete.stats.opens.machine).toBe(5);
  });

  it('counts a delivery that races the link of its send (the second writer waits for the first)', async () => {
    const db = api.deps.db;
    const { contacts } = await seedList(db, [{ email: `bs-race-${randomUUID().slice(0, 8)}@waymark-test.example` }]);
    const contact = contacts[0]!;
    const broadcast = await db
      .insertInto('broadcasts')
      .values({
        name: 'race',
        templateKey: 'order-receipt',
        category: 'newsletter',
        audience: JSON.stringify({ all: true }),
        status: 'sending',
        startedAt: new Date(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db.insertInto('broadcastRecipients').values({ broadcastId: broadcast.id, contactId: contact.id, position: 1, email: contact.email }).execute();
    const send = await db
      .insertInto('emailSends')
      .values({
        templateKey: 'order-receipt',
        fromEmail: 'news@waymark-test.example',
        toEmail: contact.email!,
        category: 'newsletter',
        status: 'sent',
        sentAt: new Date(),
        broadcastId: broadcast.id,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    let delivery: Promise<unknown> | undefined;
    await db.transaction().execute(async (trx) => {
      // the chunk links the send (not committed yet) while the delivery notification arrives
      await trx.updateTable('broadcastRecipients').set({ status: 'sent', emailSendId: send.id }).where('broadcastId', '=', broadcast.id).execute();
      delivery = db.updateTable('emailSends').set({ deliveredAt: new Date(), status: 'delivered' }).where('id', '=', send.id).execute();
      await eventually(
        async () =>
          (
            await sql<{ n: string }>`
              select count(*) as n from pg_stat_activity
              where datname = current_database() and wait_event = 'advisory' and query like 'update "email_sends"%'`.execute(db)
          ).rows[0]!.n,
        (n) => Number(n) > 0,
        { what: 'the delivery waiting for the link to commit' },
      );
    });
    await delivery;
    const expected = await recount(db, broadcast.id);
    expect(expected.get('total')!.stats.delivered).toBe(1);
    expect((await read(broadcast.id)).stats).toEqual(expected.get('total')!.stats);
  });
});
