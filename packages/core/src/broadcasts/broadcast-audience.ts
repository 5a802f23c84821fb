import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { nextLocalTime } from '@waymark/journey';
import { recipientTimeZone, TIME_ZONE_PROPERTY } from '../contacts/time-zone';
import type { Db } from '../db/database';
import { WARMUP_CLICK_WEIGHT } from '../deliverability/warmup-plan';
import type { BroadcastPhase, BroadcastRow } from '../db/schema';
import { segmentFilter, type SegmentTables } from '../segments/compile-segment';
import type { SegmentCondition } from '../segments/segment-conditions';
import type { AbTest, BroadcastAudience, BroadcastVariant } from './broadcast-schemas';

type ContactsBuilder = ExpressionBuilder<SegmentTables, 'c'>;

/**
 * The audience as one WHERE over `contacts as c`, through the segments compiler (a list is its
 * `list` leaf, everyone an empty `all`); undefined when its segment no longer exists.
 */
async function audienceFilter(db: Db, row: BroadcastRow, now: Date): Promise<((eb: ContactsBuilder) => Expression<SqlBool>) | undefined> {
  const audience = row.audience as unknown as BroadcastAudience;
  if ('all' in audience) return segmentFilter({ all: [] }, now);
  if ('listKey' in audience) return segmentFilter({ type: 'list', list: audience.listKey }, now);
  const segment = await db.selectFrom('segments').select('conditions').where('id', '=', audience.segmentId).executeTakeFirst();
  if (segment === undefined) return undefined;
  return segmentFilter(segment.conditions as unknown as SegmentCondition, now);
}

/** How many of `eligible` recipients get the A/B test: the fraction, at least one per variant. */
export function testRecipientCount(eligible: number, abTest: AbTest, variants: number): number {
  return Math.min(eligible, Math.max(variants, Math.round(eligible * abTest.testFraction)));
}

/**
 * Spreads the variants over the pending recipients in snapshot order (a stable shuffle): all of
 * them without an A/B test; with one, the first `testRecipientCount` get the test (phase `test`)
 * and the rest wait for the winner (phase `rest`, no variant yet).
 */
async function assignVariants(db: Db, row: BroadcastRow, eligible: number): Promise<void> {
  const variants = row.variants as unknown as BroadcastVariant[] | null;
  if (variants === null) return;
  const ids = variants.map((variant) => variant.id);
  const abTest = row.abTest as unknown as AbTest | null;
  const tested = abTest === null ? eligible : testRecipientCount(eligible, abTest, ids.length);
  const testPhase: BroadcastPhase = abTest === null ? 'all' : 'test';
  await sql`
    with ranked as (
      select contact_id, row_number() over (order by position) - 1 as i
      from broadcast_recipients where broadcast_id = ${row.id} and status = 'pending'
    )
    update broadcast_recipients r
    set phase = case when ranked.i < ${tested} then ${testPhase} else 'rest' end,
        variant_id = case when ranked.i < ${tested} then (${ids}::text[])[(ranked.i % ${ids.length}) + 1] end
    from ranked
    where r.broadcast_id = ${row.id} and r.contact_id = ranked.contact_id`.execute(db);
}

/**
 * `localTime`: each pending recipient of `phase` (all phases when absent) gets the first moment
 * after `from` when it is that time in its contact's `timezone` (the default zone when absent or
 * not a zone). One UPDATE per distinct zone, not per recipient; the instant is the journeys'
 * own nextLocalTime, so a broadcast and a journey's sleepUntilLocal agree.
 */
export async function assignLocalSendTimes(db: Db, row: BroadcastRow, from: Date, defaultTimeZone: string, phase?: BroadcastPhase): Promise<void> {
  if (row.localTime === null) return;
  const localTime = row.localTime;
  const onlyPhase = phase === undefined ? sql`` : sql`and r.phase = ${phase}`;
  const zones = await sql<{ zone: string | null }>`
    select distinct c.properties ->> ${TIME_ZONE_PROPERTY} as zone
    from broadcast_recipients r join contacts c on c.id = r.contact_id
    where r.broadcast_id = ${row.id} and r.status = 'pending' ${onlyPhase}`.execute(db);
  for (const { zone } of zones.rows) {
    const at = new Date(nextLocalTime(from.getTime(), recipientTimeZone(zone, defaultTimeZone), localTime));
    await sql`
      update broadcast_recipients r set send_at = ${at}
      from contacts c
      where c.id = r.contact_id and r.broadcast_id = ${row.id} and r.status = 'pending' ${onlyPhase}
        and (c.properties ->> ${TIME_ZONE_PROPERTY}) is not distinct from ${zone}`.execute(db);
  }
}

/** A person's human opens and clicks of everything sent to them, highest first (an index scan of their sends by address). */
const ENGAGEMENT_FIRST = sql`(
  select count(s.human_opened_at) + ${WARMUP_CLICK_WEIGHT} * count(s.human_clicked_at) from email_sends s where lower(s.to_email) = lower(c.email)
) desc,`;

/**
 * The audience snapshot, taken once when sending starts (later joiners are not added): one row per
 * contact, in a stable shuffled order, `skipped` with `no_email` for contacts without an address.
 * Safe to run again (a retried activity): it does nothing once `started_at` is set, and the
 * unique (broadcast, contact) key keeps it to one row per contact in any case.
 * Answers false when the audience's segment is gone. `engagedFirst` (a marketing broadcast under
 * the warm-up ramp, docs/email.md "Warm-up"): the order ranks people by their human opens and
 * clicks of earlier mail (a click counts twice, as in warmup-plan.ts), the shuffle only breaking ties.
 */
export async function takeAudienceSnapshot(db: Db, row: BroadcastRow, now: Date, defaultTimeZone: string, engagedFirst = false): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const claimed = await trx
      .updateTable('broadcasts')
      .set({ startedAt: now, updatedAt: now })
      .where('id', '=', row.id)
      .where('startedAt', 'is', null)
      .returningAll()
      .executeTakeFirst();
    if (claimed === undefined) return true;
    const filter = await audienceFilter(trx, claimed, now);
    if (filter === undefined) return false;
    await trx
      .insertInto('broadcastRecipients')
      .columns(['broadcastId', 'contactId', 'position', 'userId', 'email', 'status', 'reason'])
      .expression(
        trx
          .selectFrom('contacts as c')
          .where(filter)
          .select([
            sql<string>`${claimed.id}::uuid`.as('broadcastId'),
            'c.id as contactId',
            sql<number>`row_number() over (order by ${engagedFirst ? ENGAGEMENT_FIRST : sql``} md5(c.id::text || ${claimed.id}))`.as('position'),
            'c.externalId as userId',
            'c.email',
            sql<string>`case when coalesce(c.email, '') = '' then 'skipped' else 'pending' end`.as('status'),
            sql<string>`case when coalesce(c.email, '') = '' then 'no_email' end`.as('reason'),
          ]),
      )
      .onConflict((oc) => oc.columns(['broadcastId', 'contactId']).doNothing())
      .execute();
    const counts = await trx
      .selectFrom('broadcastRecipients')
      .select((eb) => [eb.fn.countAll<string>().as('size'), sql<string>`count(*) filter (where status = 'pending')`.as('eligible')])
      .where('broadcastId', '=', claimed.id)
      .executeTakeFirstOrThrow();
    await assignVariants(trx, claimed, Number(counts.eligible));
    await assignLocalSendTimes(trx, claimed, claimed.scheduledAt ?? now, defaultTimeZone);
    await trx
      .updateTable('broadcasts')
      .set({ audienceSize: Number(counts.size) })
      .where('id', '=', claimed.id)
      .execute();
    if (claimed.abTest !== null)
      await trx.updateTable('broadcasts').set({ status: 'testing' }).where('id', '=', claimed.id).where('status', '=', 'sending').execute();
    return true;
  });
}
