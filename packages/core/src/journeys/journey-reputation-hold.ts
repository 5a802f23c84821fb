import { reputationHold } from '../deliverability/reputation-hold';
import type { EmailDeps } from '../emails/email-deps';
import { isRequired, type GateCategory } from '../preferences/send-gate';
import type { SendJourneyEmailInput } from './journey-email';
import { recordJourneyStep } from './run-steps';

/** How often a held journey email looks again when the deps set no REPUTATION_RECHECK_SECONDS. */
const DEFAULT_RECHECK_MS = 5 * 60_000;

/**
 * The reputation breaker on one journey send (docs/email.md, "Reputation breaker"), asked before
 * the caps and the send path: marketing mail to a mailbox provider whose breaker is paused waits,
 * logged `held` with reason `reputation` (what explain shows), and the activity looks again after
 * REPUTATION_RECHECK_SECONDS (a durable retry, as for `suppress.hours`). A send already admitted
 * (its row exists) goes on: it was decided before the pause.
 */
export async function applyJourneyReputationHold(
  deps: EmailDeps,
  input: SendJourneyEmailInput,
  category: GateCategory,
  admittedBefore: boolean,
  now = new Date(),
): Promise<{ status: 'deferred'; retryAt: Date; reason: 'reputation' } | undefined> {
  if (admittedBefore) return undefined;
  const required = isRequired(category);
  const hold = reputationHold(await deps.breakerStates.read(), { required, to: input.userEmail });
  if (!hold.held) return undefined;
  const retryAt = new Date(now.getTime() + (deps.reputationRecheckMs ?? DEFAULT_RECHECK_MS));
  await recordJourneyStep(deps.db, {
    stateId: input.stateId,
    toNodeId: input.nodeId,
    action: 'held',
    status: 'waiting',
    detail: { templateKey: input.templateKey, reason: 'reputation', provider: hold.provider, until: retryAt.toISOString() },
  });
  return { status: 'deferred', retryAt, reason: 'reputation' };
}
