import { sql } from 'kysely';
import { reputationThresholds, type DeliveryPolicy, type WarmupPlan } from '@waymark/journey';
import type { Db } from '../db/database';
import type { WindowCounts } from './breaker-verdict';
import { dayCrossedSlow, warmupAllowance } from './warmup-plan';

/**
 * The warm-up ramp against the database (docs/email.md, "Warm-up"): each UTC day of the ramp is a
 * row of warmup_days counting the marketing sends it let through, and the day's bounce and
 * complaint rates are the reputation breaker's own counts (reputation_counts, marketing group,
 * every provider) of that day. The allowance is the pure planner's (warmup-plan.ts).
 */

/** The UTC day of an instant, as warmup_days keys it ('2026-11-29'). */
export const warmupDayOf = (at: Date): string => at.toISOString().slice(0, 10);

/** Midnight UTC after `at`: when a spent day's allowance is renewed. */
export function nextWarmupDay(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}

/** One day of the ramp as it went: what it let through, and what SES's events said of that day's marketing mail. */
export interface WarmupDay extends WindowCounts {
  day: string;
  used: number;
}

/** Every day of the ramp before `today`, oldest first, with the marketing group's counts of that day. */
async function earlierDays(db: Db, today: string): Promise<WarmupDay[]> {
  const { rows } = await sql<WarmupDay>`
    select w.day::text as day, w.used,
      coalesce(sum(c.sends), 0)::int as sends, coalesce(sum(c.bounces), 0)::int as bounces, coalesce(sum(c.complaints), 0)::int as complaints
    from warmup_days w
    left join reputation_counts c on c.send_group = 'marketing'
      and c.hour >= w.day::timestamp at time zone 'UTC' and c.hour < (w.day + 1)::timestamp at time zone 'UTC'
    where w.day < ${today}::date
    group by w.day, w.used
    order by w.day`.execute(db);
  return rows;
}

/** Today's allowance (undefined: the ramp is over, or the policy has none) and what of it is used. */
export interface WarmupToday {
  day: string;
  allowance: number | undefined;
  used: number;
}

/** The ramp's state at `now`, with the earlier days it was computed from. */
export async function readWarmup(db: Db, policy: DeliveryPolicy, now: Date): Promise<{ today: WarmupToday; earlier: WarmupDay[] }> {
  const day = warmupDayOf(now);
  if (policy.warmup === undefined) return { today: { day, allowance: undefined, used: 0 }, earlier: [] };
  const earlier = await earlierDays(db, day);
  const row = await sql<{ used: number }>`select used from warmup_days where day = ${day}::date`.execute(db);
  return {
    today: { day, allowance: warmupAllowance(policy.warmup, earlier, reputationThresholds(policy)), used: row.rows[0]?.used ?? 0 },
    earlier,
  };
}

/**
 * Claims up to `want` marketing sends of today's allowance at `now`: answers how many it got
 * (`want` when there is no ramp or it is over). The day's row is locked for the claim, so two
 * workers claiming at once never let more than the allowance through; called inside a broadcast
 * chunk's transaction, the claim is undone with the chunk when a send throws.
 */
export async function claimWarmup(db: Db, policy: DeliveryPolicy, want: number, now: Date): Promise<number> {
  if (policy.warmup === undefined || want === 0) return want;
  const { today } = await readWarmup(db, policy, now);
  if (today.allowance === undefined) return want;
  await sql`insert into warmup_days (day) values (${today.day}::date) on conflict (day) do nothing`.execute(db);
  const { rows } = await sql<{ granted: number }>`
    update warmup_days w set used = w.used + g.granted, updated_at = now()
    from (select least(${want}::int, greatest(0, ${today.allowance}::int - used)) as granted from warmup_days where day = ${today.day}::date for update) g
    where w.day = ${today.day}::date
    returning g.granted`.execute(db);
  return rows[0]?.granted ?? 0;
}

/** One day of the plan as the studio shows it. */
export interface WarmupPlanDay {
  day: string;
  /** null: the ramp is over that day (no cap) */
  allowance: number | null;
  used: number;
  /** its rates crossed the slow thresholds: the next day did not grow */
  held: boolean;
}

/** The ramp for GET /v1/admin/deliverability (docs/email.md, "Warm-up"). */
export interface WarmupReport extends WarmupPlan {
  complete: boolean;
  today: { day: string; allowance: number | null; used: number };
  /** the days so far, oldest first, then today and the days ahead (assuming each stays under the slow thresholds) until the ramp ends */
  days: WarmupPlanDay[];
}

/** The ramp's days so far and ahead, for the report; undefined when the policy has no warm-up. */
export async function warmupReport(db: Db, policy: DeliveryPolicy, now: Date): Promise<WarmupReport | undefined> {
  const plan = policy.warmup;
  if (plan === undefined) return undefined;
  const thresholds = reputationThresholds(policy);
  const { today, earlier } = await readWarmup(db, policy, now);
  const days: WarmupPlanDay[] = earlier.map((day, index) => ({
    day: day.day,
    allowance: warmupAllowance(plan, earlier.slice(0, index), thresholds) ?? null,
    used: day.used,
    held: dayCrossedSlow(day, thresholds),
  }));
  // today and the days ahead, each assumed to stay under the slow thresholds
  const ahead: WindowCounts[] = [...earlier];
  for (let offset = 0, at = now; ; offset++, at = nextWarmupDay(at)) {
    const allowance = warmupAllowance(plan, ahead, thresholds);
    days.push({ day: warmupDayOf(at), allowance: allowance ?? null, used: offset === 0 ? today.used : 0, held: false });
    if (allowance === undefined) break;
    ahead.push({ sends: 0, bounces: 0, complaints: 0 });
  }
  return { ...plan, complete: today.allowance === undefined, today: { day: today.day, allowance: today.allowance ?? null, used: today.used }, days };
}
