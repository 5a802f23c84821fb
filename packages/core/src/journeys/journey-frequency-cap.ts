import { capsFor, describeCap, formatLocal } from '@waymark/journey';
import { contactTimeZone } from '../contacts/time-zone';
import { claimCapRoom, releaseCapClaims } from '../delivery/frequency-caps';
import type { EmailDeps } from '../emails/email-deps';
import type { SendJourneyEmailInput } from './journey-email';
import { recordJourneyStep } from './run-steps';

export type JourneyCapOutcome = { status: 'skipped'; reason: 'frequency_cap' } | { status: 'deferred'; retryAt: Date; reason: 'frequency_cap' };

/**
 * The delivery policy's frequency caps on one journey send (docs/journeys.md, "Timing and
 * etiquette"), asked before the send path. `admitted`: the send may go (`claimed`: it holds a
 * claim to release with `releaseJourneyCapClaim` once the send path has answered). Over a `skip`
 * cap the send is logged `email_skipped` (reason `frequency_cap`); over a `delay` cap it is logged
 * `held` until the window has room, on the recipient's clock, and the activity retries it then (a
 * durable timer, as for `suppress.hours`). A retry that finds the send's own row was admitted before.
 */
export async function applyJourneyFrequencyCap(
  deps: EmailDeps,
  input: SendJourneyEmailInput,
  /** the send already has its email_sends row (the caller's read of it): an earlier attempt was admitted */
  admittedBefore: boolean,
  now = new Date(),
): Promise<JourneyCapOutcome | { status: 'admitted'; claimed: boolean }> {
  const { policy, defaultTimeZone } = deps.delivery;
  if (admittedBefore || capsFor(policy, input.category).length === 0) return { status: 'admitted', claimed: false };
  const capped = await claimCapRoom(deps.db, policy, {
    sends: [{ idempotencyKey: input.idempotencyKey, email: input.userEmail }],
    category: input.category,
    at: now,
  });
  const verdict = capped.get(input.idempotencyKey);
  if (verdict === undefined) return { status: 'admitted', claimed: true };
  const base = { stateId: input.stateId, toNodeId: input.nodeId };
  const detail = { templateKey: input.templateKey, reason: 'frequency_cap', cap: describeCap(verdict.cap), until: verdict.until.toISOString() };
  if (verdict.onCap === 'skip') {
    await recordJourneyStep(deps.db, { ...base, action: 'email_skipped', status: 'active', detail });
    return { status: 'skipped', reason: 'frequency_cap' };
  }
  const timeZone = await contactTimeZone(deps.db, input.userId, defaultTimeZone);
  await recordJourneyStep(deps.db, {
    ...base,
    action: 'held',
    status: 'waiting',
    detail: { ...detail, localUntil: formatLocal(verdict.until.getTime(), timeZone), timeZone },
  });
  return { status: 'deferred', retryAt: verdict.until, reason: 'frequency_cap' };
}

/** The send path has answered: its email_sends row (if any) counts from now on. */
export function releaseJourneyCapClaim(deps: EmailDeps, input: SendJourneyEmailInput): Promise<void> {
  return releaseCapClaims(deps.db, [input.idempotencyKey]);
}
