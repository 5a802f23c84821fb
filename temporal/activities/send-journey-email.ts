import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { deliverJourneyEmail } from '@waymark/core/journeys/deliver-journey-email';
import { isSesThrottling } from '@waymark/email/ses-throttling';
import type { EmailDeps } from '@waymark/core/emails/email-deps';
import { annotateActiveSpan, SpanAttribute } from '@waymark/core/logging/trace-context';
import type { SendJourneyEmailInput, SendJourneyEmailResult } from '@waymark/core/journeys/journey-email';

export interface SendJourneyEmailDeps {
  /** the send path (templates, SES transport, tokens); see core/emails/create-email-deps.ts */
  email: EmailDeps;
}

/**
 * The journey email step: ONE activity over the core send path (exactly once per idempotency
 * key; failed-for-good sends come back as `failed`, parked in the DLQ, and the journey goes on).
 * A send inside the journey's `suppress.hours` window is retried by Temporal exactly when the
 * window ends (`nextRetryDelay`): the run waits durably, through worker restarts, and the email is
 * not dropped. Errors thrown here are infrastructure errors (database, provider before giving up)
 * and are retried by the workflow's retry policy.
 */
export function createSendJourneyEmailActivities(deps: SendJourneyEmailDeps) {
  return {
    async sendJourneyEmail(input: SendJourneyEmailInput): Promise<SendJourneyEmailResult> {
      // the activity's span (Temporal's interceptor, tracing on) says whose send this is: ids only
      annotateActiveSpan({ [SpanAttribute.journeyId]: input.journeyId, [SpanAttribute.userId]: input.userId, [SpanAttribute.template]: input.templateKey });
      let outcome;
      try {
        outcome = await deliverJourneyEmail(deps.email, input);
      } catch (error) {
        if (!isSesThrottling(error)) throw error;
        // SES's rate, not the message: the send path did not count it; retried with the policy's backoff, quietly
        throw ApplicationFailure.create({ type: 'SesThrottling', message: (error as Error).message, category: ApplicationFailureCategory.BENIGN });
      }
      if (outcome.status === 'deferred') {
        throw ApplicationFailure.create({
          ...deferral(outcome.reason, outcome.retryAt),
          nextRetryDelay: Math.max(1_000, outcome.retryAt.getTime() - Date.now()),
          // an expected wait, not an error: logged at debug level, no failure metrics
          category: ApplicationFailureCategory.BENIGN,
        });
      }
      if (outcome.emailSendId !== undefined) annotateActiveSpan({ [SpanAttribute.sendId]: outcome.emailSendId });
      return outcome;
    },
  };
}

function deferral(reason: string, retryAt: Date): { type: string; message: string } {
  if (reason === 'send_rate') return { type: 'SendRateDeferred', message: `send rate: this send's slot of the shared budget is at ${retryAt.toISOString()}` };
  // docs/email.md, "Exactly once": the send's SES event is awaited, and looked for again then
  if (reason === 'reputation')
    return { type: 'ReputationHold', message: `reputation breaker: marketing mail to this provider is paused; looking again at ${retryAt.toISOString()}` };
  if (reason === 'warmup') return { type: 'WarmupHold', message: `warm-up: today's marketing allowance is spent; sending from ${retryAt.toISOString()}` };
  if (reason === 'delivery_unknown') return { type: 'DeliveryUnknown', message: `delivery unknown: waiting for SES's event until ${retryAt.toISOString()}` };
  return { type: 'EmailSuppressWindow', message: `${reason}: next journey email to this address allowed at ${retryAt.toISOString()}` };
}

export type SendJourneyEmailActivities = ReturnType<typeof createSendJourneyEmailActivities>;
