import { sql } from 'kysely';
import type { DeliveryPolicy } from '@waymark/journey';
import type { Db } from '../db/database';
import type { BroadcastPhase, BroadcastRow } from '../db/schema';
import { claimWarmup, nextWarmupDay, readWarmup } from '../deliverability/warmup';
import { isRequired, type GateCategory } from '../preferences/send-gate';

/**
 * A broadcast under the warm-up ramp (docs/email.md, "Warm-up"): it sends what fits in today's
 * allowance, and the rest of its recipients wait for the next day's, the broadcast still `sending`
 * with `warmupUntil` saying until when. Mail the person asked for (a required category) is not
 * marketing and never waits for the ramp.
 */

/**
 * Today's allowance is spent (a chunk's claim got less than it asked): every other pending
 * recipient of `phases` due at `now` waits until `until` too, in one UPDATE rather than a chunk at
 * a time. `asked`: the chunk's own recipients, which admission answered one by one.
 */
export async function deferRestForWarmup(
  trx: Db,
  spent: { broadcastId: string; phases: readonly BroadcastPhase[]; now: Date; until: Date },
  asked: readonly string[],
): Promise<void> {
  await sql`
    update broadcast_recipients set send_at = ${spent.until}, updated_at = now()
    where broadcast_id = ${spent.broadcastId} and status = 'pending' and phase = any(${spent.phases}::text[])
      and (send_at is null or send_at <= ${spent.now}) and contact_id <> all(${asked}::uuid[])`.execute(trx);
}

/**
 * Claims today's allowance for `want` marketing sends of a chunk (admitSends asks only for sends
 * of a category that is not required): the first `granted` go (the chunk's recipients come in
 * snapshot order, most engaged first), the rest wait until `until`, which the broadcast shows as
 * its `warmupUntil`.
 */
export async function claimBroadcastWarmup(
  trx: Db,
  policy: DeliveryPolicy,
  row: BroadcastRow,
  want: number,
  now: Date,
): Promise<{ granted: number; until: Date }> {
  const until = nextWarmupDay(now);
  if (policy.warmup === undefined) return { granted: want, until };
  const granted = await claimWarmup(trx, policy, want, now);
  const warmupUntil = granted < want ? until : null;
  if ((warmupUntil?.getTime() ?? null) !== (row.warmupUntil?.getTime() ?? null))
    await trx.updateTable('broadcasts').set({ warmupUntil, updatedAt: new Date() }).where('id', '=', row.id).execute();
  return { granted, until };
}

/**
 * Whether the audience snapshot should rank recipients by engagement: a marketing broadcast
 * starting while the ramp caps the day, so the first days' mail goes to the people most likely
 * to open and click it (what the mailbox providers judge a new sender by).
 */
export async function rankByEngagement(db: Db, policy: DeliveryPolicy, category: GateCategory, now: Date): Promise<boolean> {
  if (policy.warmup === undefined || isRequired(category)) return false;
  return (await readWarmup(db, policy, now)).today.allowance !== undefined;
}
