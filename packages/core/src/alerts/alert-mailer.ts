import type { SendEmailInput } from '../emails/send-email';
import type { AlertMailer } from './alert-delivery';

export const ALERT_TEMPLATE = 'system-alert';

/**
 * The email channel: a plain operator notice (the `system-alert` template) through the normal send
 * path, so it has a ledger row like every email. The worker passes the system-email runs
 * (core/emails/system-emails.ts): the notice survives a worker restart as a reset link does.
 */
export function createAlertMailer(send: (input: SendEmailInput) => Promise<unknown>): AlertMailer {
  return async (message) => {
    await send({
      templateKey: ALERT_TEMPLATE,
      to: message.to,
      data: { ruleName: message.ruleName, text: message.text },
      idempotencyKey: message.idempotencyKey,
    });
  };
}
