import { claimWarmup, nextWarmupDay } from '../deliverability/warmup';
import type { EmailDeps } from '../emails/email-deps';
import { isRequired, type GateCategory } from '../preferences/send-gate';
import type { SendJourneyEmailInput } from './journey-email';
import { recordJourneyStep } from './run-steps';

/**
 * The warm-up ramp on one journey send (docs/email.md, "Warm-up"), asked once the send passed the
 * caps: marketing mail claims one send of today's allowance; when the day's is spent the send
 * waits for the next day's, logged `held` with reason `warmup` (what explain shows), and the
 * activity looks again at midnight UTC (a durable retry). Mail the person asked for (a required
 * category) never waits; a send already admitted (its row exists) claimed its share before.
 */
export async function applyJourneyWarmupHold(
  deps: EmailDeps,
  input: SendJourneyEmailInput,
  category: GateCategory,
  admittedBefore: boolean,
  now = new Date(),
): Promise<{ status: 'deferred'; retryAt: Date; reason: 'warmup' } | undefined> {
  if (admittedBefore || isRequired(category) || deps.delivery.policy.warmup === undefined) return undefined;
  if ((await claimWarmup(deps.db, deps.delivery.policy, 1, now)) === 1) return undefined;
  const retryAt = nextWarmupDay(now);
  await recordJourneyStep(deps.db, {
    stateId: input.stateId,
    toNodeId: input.nodeId,
    action: 'held',
    status: 'waiting',
    detail: { templateKey: input.templateKey, reason: 'warmup', until: retryAt.toISOString() },
  });
  return { status: 'deferred', retryAt, reason: 'warmup' };
}
