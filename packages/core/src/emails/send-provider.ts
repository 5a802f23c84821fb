import { describeProviderError, isProviderError } from '@waymark/email/ses-provider-error';
import { isSesThrottling } from '@waymark/email/ses-throttling';
import { EMAIL_SEND_ID_TAG } from '@waymark/email/ses-notification';
import type { EmailSendRow } from '../db/schema';
import { inSpan, SpanAttribute } from '../logging/trace-context';
import type { EmailDeps } from './email-deps';
import { listUnsubscribeHeaders } from './email-links';
import type { SendEmailResult } from './send-email-types';
import { failForGood } from './send-outcome';
import type { PreparedSend } from './send-render';

/** Provider failures a send survives before it is marked failed and parked in the DLQ. */
const DEFAULT_MAX_SEND_ATTEMPTS = 5;

/**
 * The provider call of a claimed row: the provider's message id, or the send's end (failed for
 * good after `maxAttempts` provider errors). Any other provider error releases the claim and is
 * rethrown for the caller's retry.
 */
export async function callProvider(
  deps: EmailDeps,
  row: EmailSendRow,
  prepared: PreparedSend,
  html: string,
  maxAttempts: number | undefined,
): Promise<string | SendEmailResult> {
  try {
    // the provider call's own span (docs/operations.md, "Tracing"): ids only, never the address
    const attributes = { [SpanAttribute.sendId]: row.id, [SpanAttribute.template]: row.templateKey, [SpanAttribute.userId]: row.userId ?? '' };
    const { messageId } = await inSpan('ses SendEmail', attributes, () =>
      deps.transport.send({
        from: row.fromEmail,
        to: row.toEmail,
        subject: prepared.subject,
        html,
        text: prepared.text,
        headers: listUnsubscribeHeaders(prepared.links),
        tags: [
          { name: EMAIL_SEND_ID_TAG, value: row.id },
          { name: 'waymark_template', value: row.templateKey.replace(/[^\w-]/g, '_') },
        ],
      }),
    );
    return messageId;
  } catch (error) {
    // The provider answered (with an error), so it did not accept the message: safe to retry.
    // Throttling refuses the rate, not the message: retried without counting (docs/email.md, "Send rate").
    const throttled = isSesThrottling(error);
    if (throttled) deps.sendRate?.recordThrottled();
    const released = await deps.db
      .updateTable('emailSends')
      .set((eb) => ({
        sendStartedAt: null,
        sendAttempts: throttled ? eb.ref('sendAttempts') : eb('sendAttempts', '+', 1),
        errorMessage: String((error as Error).message).slice(0, 2000),
        updatedAt: new Date(),
      }))
      .where('id', '=', row.id)
      .returning('sendAttempts')
      .executeTakeFirstOrThrow();
    if (!throttled && released.sendAttempts >= (maxAttempts ?? DEFAULT_MAX_SEND_ATTEMPTS)) {
      // the reason is the caller's answer too: a socket error's message names the endpoint, so it is described
      const reason = isProviderError(error) ? describeProviderError(error).reason : (error as Error).message;
      return failForGood(deps, row, `Provider error after ${released.sendAttempts} attempt(s): ${reason}`);
    }
    throw error;
  }
}
