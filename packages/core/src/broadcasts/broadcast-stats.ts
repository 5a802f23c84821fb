import { sql } from 'kysely';
import type { Db } from '../db/database';
import { dailySeries, type DailyOutcome, type DailyRow } from '../outcomes/daily-outcome';
import { goalOutcome, type ArmTotals, type GoalOutcome } from '../outcomes/goal-outcome';
import { UNKNOWN_DROPPED, type BroadcastGoal } from './broadcast-schemas';

/** A goal broadcast's result: the same arms and lift as a journey's outcomes (docs/broadcasts.md, "Goals and holdouts"). */
export interface BroadcastGoalStats extends GoalOutcome {
  goal: { event: string; within: string };
  /** per UTC day, oldest first: recipients exposed that day and recipients who converted that day, per arm (the studio's chart) */
  daily: DailyOutcome[];
}

export interface BroadcastStats {
  sent: number;
  failed: number;
  /** sends whose outcome was unknown, dropped by the delivery policy (docs/email.md, "Exactly once") */
  unknownDropped: number;
  skipped: { unsubscribed: number; suppressed: number; noEmail: number; missingData: number; frequencyCap: number; holdout: number };
  delivered: number;
  bounced: number;
  complained: number;
  opens: { human: number; machine: number };
  clicks: { human: number; machine: number };
  /** recipients who left this broadcast's category (or everything) after its email was sent */
  unsubscribed: number;
  /** null for a broadcast without a goal */
  goal: BroadcastGoalStats | null;
}

/** Recipients past `pending` (sent, failed, skipped or cancelled), for progress. */
export interface BroadcastCounts {
  stats: BroadcastStats;
  done: number;
  /** the goal's counters per arm (people exposed, of them converted); `stats.goal` is made from them and the broadcast's goal */
  arms: { treatment: ArmTotals; holdout: ArmTotals };
  /** the goal's counters per day and arm (exposed as `enrolled`), in day order; `stats.goal.daily` is made from them */
  days: DailyRow[];
}

export function emptyStats(): BroadcastStats {
  return {
    sent: 0,
    failed: 0,
    unknownDropped: 0,
    skipped: { unsubscribed: 0, suppressed: 0, noEmail: 0, missingData: 0, frequencyCap: 0, holdout: 0 },
    delivered: 0,
    bounced: 0,
    complained: 0,
    opens: { human: 0, machine: 0 },
    clicks: { human: 0, machine: 0 },
    unsubscribed: 0,
    goal: null,
  };
}

/** The counters of a broadcast (or variant) before any is read. */
export function emptyCounts(): BroadcastCounts {
  return {
    stats: emptyStats(),
    done: 0,
    arms: { treatment: { enrolled: 0, converted: 0, value: 0 }, holdout: { enrolled: 0, converted: 0, value: 0 } },
    days: [],
  };
}

/**
 * The stats with the goal's result, for a broadcast with a goal; the holdout arm is null when
 * nobody is held out. Broadcast goals have no value, so `value` is 0.
 */
export function withGoal(counts: BroadcastCounts, goal: BroadcastGoal | null, holdoutPercent: number): BroadcastStats {
  if (goal === null) return counts.stats;
  const holdout = holdoutPercent === 0 && counts.arms.holdout.enrolled === 0 ? null : counts.arms.holdout;
  return {
    ...counts.stats,
    goal: {
      goal: { event: goal.event, within: goal.within },
      ...goalOutcome(counts.arms.treatment, holdout, true),
      daily: dailySeries(counts.days, holdout !== null),
    },
  };
}

/** Where each counter bucket (migrations 0135, 0245) goes in the stats; every recipient outcome (not `pending`) is also `done`. */
function addBucket(into: BroadcastCounts, bucket: string, n: number): void {
  const stats = into.stats;
  if (bucket === 'sent' || bucket === 'failed' || bucket === 'cancelled' || bucket.startsWith('skipped:')) into.done += n;
  switch (bucket) {
    case 'sent':
      stats.sent += n;
      break;
    case 'failed':
      stats.failed += n;
      break;
    case 'skipped:unsubscribed':
      stats.skipped.unsubscribed += n;
      break;
    case 'skipped:suppressed':
      stats.skipped.suppressed += n;
      break;
    case 'skipped:no_email':
      stats.skipped.noEmail += n;
      break;
    case 'skipped:missing_data':
      stats.skipped.missingData += n;
      break;
    case `skipped:${UNKNOWN_DROPPED}`:
      stats.unknownDropped += n;
      break;
    case 'skipped:frequency_cap':
      stats.skipped.frequencyCap += n;
      break;
    case 'skipped:holdout':
      stats.skipped.holdout += n;
      break;
    case 'goal:treatment':
      into.arms.treatment.enrolled += n;
      break;
    case 'goal:holdout':
      into.arms.holdout.enrolled += n;
      break;
    case 'goal:treatment:converted':
      into.arms.treatment.converted += n;
      break;
    case 'goal:holdout:converted':
      into.arms.holdout.converted += n;
      break;
    case 'delivered':
      stats.delivered += n;
      break;
    case 'bounced':
      stats.bounced += n;
      break;
    case 'complained':
      stats.complained += n;
      break;
    case 'opens:human':
      stats.opens.human += n;
      break;
    case 'opens:machine':
      stats.opens.machine += n;
      break;
    case 'clicks:human':
      stats.clicks.human += n;
      break;
    case 'clicks:machine':
      stats.clicks.machine += n;
      break;
    case UNSUBSCRIBED:
      stats.unsubscribed += n;
      break;
  }
}

const UNSUBSCRIBED = 'unsubscribed';

interface BucketRow {
  broadcastId: string;
  variantId: string | null;
  bucket: string;
  n: number | string;
}

/**
 * Recipients whose email was sent and whose address then left the broadcast's category (or
 * everything): read from the preferences changed since the broadcast's first send (the
 * email_preferences_updated_idx range), each joined to that broadcast's sends to its address
 * (email_sends_broadcast_to_idx), so the cost follows the preference changes, not the audience.
 * The first send time is read first and passed as a value, so the planner sizes that range from
 * its statistics; the lateral subquery (OFFSET 0 keeps it one) is probed once per changed
 * preference instead of being hash-joined to every send of the broadcast.
 */
async function unsubscribedAfterSend(db: Db, ids: readonly string[]): Promise<BucketRow[]> {
  // each broadcast's first send by email_sends_broadcast_sent_idx (one index probe apiece)
  const firsts = await sql<{ broadcastId: string; since: Date | null }>`
    select b.id as "broadcastId",
      (select s.sent_at from email_sends s where s.broadcast_id = b.id and s.sent_at is not null order by s.sent_at limit 1) as since
    from unnest(${ids}::uuid[]) b (id)`.execute(db);
  const started = firsts.rows.filter((first): first is { broadcastId: string; since: Date } => first.since !== null);
  if (started.length === 0) return [];
  const earliest = new Date(Math.min(...started.map((first) => first.since.getTime())));
  const result = await sql<BucketRow>`
    select b.id as "broadcastId", x.variant_id as "variantId", ${UNSUBSCRIBED} as bucket, count(distinct x.contact_id) as n
    from unnest(${started.map((first) => first.broadcastId)}::uuid[], ${started.map((first) => first.since.toISOString())}::timestamptz[]) b (id, since)
    join email_preferences p on p.updated_at >= b.since
    cross join lateral (
      select r.variant_id, r.contact_id
      from email_sends e
      join broadcast_recipients r on r.email_send_id = e.id and r.broadcast_id = e.broadcast_id
      where e.broadcast_id = b.id and lower(e.to_email) = lower(p.email) and e.sent_at <= p.updated_at
        and (p.unsubscribed_all or (p.categories ->> e.category) = 'false')
      offset 0
    ) x
    where p.updated_at >= ${earliest}
    group by b.id, x.variant_id`.execute(db);
  return result.rows;
}

/**
 * Stats of each broadcast: the whole (`total`) and per variant id. Recipient outcomes and
 * engagement come from the counters triggers keep (migration 0135: a few rows per broadcast and
 * variant, summed over shards), the goal's days from theirs (migration 0270: a few rows per day);
 * `unsubscribed` from the preferences changed since it started sending. None reads the
 * broadcast's recipients or sends one by one, so a read costs the same at any audience size
 * (docs/broadcasts.md, "How stats are counted").
 */
export async function broadcastStats(db: Db, ids: readonly string[]): Promise<Map<string, { total: BroadcastCounts; variants: Map<string, BroadcastCounts> }>> {
  const result = new Map<string, { total: BroadcastCounts; variants: Map<string, BroadcastCounts> }>();
  if (ids.length === 0) return result;
  const [counted, unsubscribed, days] = await Promise.all([
    db
      .selectFrom('broadcastCounts')
      .select(['broadcastId', 'variantId', 'bucket', (eb) => eb.fn.sum<number | string>('n').as('n')])
      .where('broadcastId', 'in', ids)
      .groupBy(['broadcastId', 'variantId', 'bucket'])
      .execute(),
    unsubscribedAfterSend(db, ids),
    // the goal's counters by day (migration 0270): one row per day, variant and arm, so O(days) too
    sql<DailyRow & { broadcastId: string; variantId: string | null }>`
      select broadcast_id, variant_id, to_char(day, 'YYYY-MM-DD') as day, holdout, sum(exposed)::float8 as enrolled, sum(converted)::float8 as converted
      from broadcast_goal_days where broadcast_id = any(${ids}::uuid[])
      group by broadcast_id, variant_id, day, holdout having sum(exposed) <> 0 or sum(converted) <> 0
      order by day`.execute(db),
  ]);
  // a row counts into its broadcast's whole and, when it has a variant, into that variant's
  const countInto = (broadcastId: string, variantId: string | null, add: (counts: BroadcastCounts) => void) => {
    const entry = result.get(broadcastId)!;
    add(entry.total);
    if (variantId === null) return;
    const variant = entry.variants.get(variantId) ?? emptyCounts();
    add(variant);
    entry.variants.set(variantId, variant);
  };
  for (const id of ids) result.set(id, { total: emptyCounts(), variants: new Map() });
  for (const row of [...counted, ...unsubscribed]) countInto(row.broadcastId, row.variantId, (counts) => addBucket(counts, row.bucket, Number(row.n)));
  for (const { broadcastId, variantId, ...day } of days.rows) countInto(broadcastId, variantId, (counts) => counts.days.push(day));
  return result;
}
