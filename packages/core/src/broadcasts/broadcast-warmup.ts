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
 * When today's allowance is spent: every pending recipient of `phases` due at `now` waits for the
 * next day (one UPDATE, not a chunk at a time), and the broadcast says so. True when it deferred.
 */
export async function deferForWarmup(
  trx: Db,
  policy: DeliveryPolicy,
  row: BroadcastRow,
  category: GateCategory,
  phases: readonly BroadcastPhase[],
  now: Date,
): Promise<boolean> {
  if (policy.warmup === undefined || isRequired(category)) return false;
  const { today } = await readWarmup(trx, policy, now);
  if (today.allowance === undefined || today.used < today.allowance) return false;
  const until = nextWarmupDay(now);
  await sql`
    update broadcast_recipients set send_at = ${until}, updated_at = now()
    where broadcast_id = ${row.id} and status = 'pending' and phase = any(${phases}::text[]) and (send_at is null or send_at <= ${now})`.execute(trx);
  await trx.updateTable('broadcasts').set({ warmupUntil: until, updatedAt: new Date() }).where('id', '=', row.id).execute();
  return true;
}

/**
 * Claims today's allowance for `want` sends of a chunk: the first `granted` go (the chunk's
 * recipients come in snapshot order, most engaged first), the rest wait until `until`.
 */
export async function claimBroadcastWarmup(
  trx: Db,
  policy: DeliveryPolicy,
  row: BroadcastRow,
  category: GateCategory,
  want: number,
  now: Date,
): Promise<{ granted: number; until: Date }> {
  const until = nextWarmupDay(now);
  if (policy.warmup === undefined || isRequired(category)) return { granted: want, until };
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
