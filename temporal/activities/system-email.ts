import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { Config } from '@waymark/core/config/config';
import type { EmailDeps } from '@waymark/core/emails/email-deps';
import { openSendInput, systemEmailSealKey } from '@waymark/core/emails/sealed-input';
import { sendEmail } from '@waymark/core/emails/send-email';
import { isAppError } from '@waymark/core/errors/app-error';
import { isSesThrottling } from '@waymark/email/ses-throttling';

/** A system email's run input (workflows/system-email.ts) */
export interface SystemEmailWorkflowInput {
  /** the send input sealed under AUTH_SECRET (core/emails/sealed-input.ts): the history never holds the link */
  sealed: string;
}

export interface SystemEmailActivityDeps {
  email: EmailDeps;
  config: Pick<Config, 'authSecret'>;
}

/**
 * The send of a system email: opens the sealed input here only, then the normal send path under
 * the caller's idempotency key. A provider error is thrown and retried by the workflow's policy
 * (the send path counts it and fails the send into the DLQ after its attempts); a send-rate
 * deferral is retried at its slot.
 */
export function createSystemEmailActivities(deps: SystemEmailActivityDeps) {
  const key = systemEmailSealKey(deps.config.authSecret);
  return {
    async sendSystemEmail(input: SystemEmailWorkflowInput): Promise<string> {
      let opened;
      try {
        opened = await openSendInput(key, input.sealed);
      } catch (error) {
        // sealed under another AUTH_SECRET: no retry can open it
        throw ApplicationFailure.create({
          type: 'SystemEmailRefused',
          message: `sealed input cannot be opened: ${(error as Error).message}`,
          nonRetryable: true,
        });
      }
      let outcome;
      try {
        outcome = await sendEmail(deps.email, opened);
      } catch (error) {
        if (isAppError(error)) throw ApplicationFailure.create({ type: 'SystemEmailRefused', message: error.message, nonRetryable: true });
        if (!isSesThrottling(error)) throw error;
        throw ApplicationFailure.create({ type: 'SesThrottling', message: (error as Error).message, category: ApplicationFailureCategory.BENIGN });
      }
      if (outcome.status === 'deferred')
        throw ApplicationFailure.create({
          type: 'SendRateDeferred',
          message: `${outcome.reason}: this send's slot is at ${outcome.retryAt.toISOString()}`,
          nextRetryDelay: Math.max(1_000, outcome.retryAt.getTime() - Date.now()),
          category: ApplicationFailureCategory.BENIGN,
        });
      return outcome.status;
    },
  };
}

export type SystemEmailActivities = ReturnType<typeof createSystemEmailActivities>;
