import { describeCap, formatLocal } from '@waymark/journey';
import type { AdmissionBatch, AdmissionDefer, AdmissionSkip } from '../delivery/admit-sends';
import { programHoldoutDetail } from '../delivery/program-holdout';
import type { JsonObject } from '../db/schema';
import type { SendJourneyEmailInput } from './journey-email';

/** A journey email step as one admission batch (delivery/admit-sends.ts): a batch of one. */
export function journeyAdmissionBatch(input: SendJourneyEmailInput, admittedBefore: boolean): AdmissionBatch {
  return {
    kind: 'journey',
    category: input.category,
    sends: [
      {
        key: input.idempotencyKey,
        to: input.userEmail,
        userId: input.userId,
        heldOut: input.holdout === true,
        suppressHours: input.suppressHours,
        admittedBefore,
      },
    ],
  };
}

export type JourneyAdmissionOutcome = { status: 'skipped'; reason: string } | { status: 'deferred'; retryAt: Date; reason: string };

/**
 * What a journey logs of a send that was not admitted, and the step's answer: a skip is
 * `email_skipped` (the journey goes on); a wait is `held` (reputation, caps, warm-up: what explain
 * shows) or `waiting` (the suppress window), and the activity retries at its end. Shared by the
 * email step and the test kit's world, so both write the same log. `timeZone`: the recipient's
 * clock a `delay` cap's end is also shown on.
 */
export function journeyAdmissionStep(
  templateKey: string,
  admission: AdmissionSkip | AdmissionDefer,
  timeZone: string,
): { action: string; status: 'active' | 'waiting'; detail: JsonObject; outcome: JourneyAdmissionOutcome } {
  const reason = admission.reason;
  if (admission.verdict === 'skip') {
    const outcome = { status: 'skipped', reason } as const;
    const base = { templateKey, reason };
    switch (admission.reason) {
      case 'holdout':
        return {
          action: 'email_skipped',
          status: 'active',
          detail: { ...base, ...(admission.arm === undefined ? {} : programHoldoutDetail(admission.arm)) },
          outcome,
        };
      case 'frequency_cap':
        return {
          action: 'email_skipped',
          status: 'active',
          detail: { ...base, cap: describeCap(admission.cap.cap), until: admission.cap.until.toISOString() },
          outcome,
        };
      default:
        return { action: 'email_skipped', status: 'active', detail: base, outcome };
    }
  }
  const outcome = { status: 'deferred', retryAt: admission.until, reason } as const;
  const base = { templateKey, reason };
  const until = admission.until.toISOString();
  switch (admission.reason) {
    case 'reputation':
      return { action: 'held', status: 'waiting', detail: { ...base, provider: admission.provider, until }, outcome };
    case 'frequency_cap':
      return {
        action: 'held',
        status: 'waiting',
        detail: { ...base, cap: describeCap(admission.cap.cap), until, localUntil: formatLocal(admission.until.getTime(), timeZone), timeZone },
        outcome,
      };
    case 'suppress_window':
      return { action: 'waiting', status: 'waiting', detail: { ...base, until }, outcome };
    case 'warmup':
      return { action: 'held', status: 'waiting', detail: { ...base, until }, outcome };
  }
}
