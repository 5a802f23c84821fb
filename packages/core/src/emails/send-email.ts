import type { EmailSendRow } from '../db/schema';
import { badRequest } from '../errors/app-error';
import { admitSends } from '../delivery/admit-sends';
import { sendCategoryKey } from '../delivery/send-category';
import { databaseAdmission } from './database-admission';
import type { EmailDeps } from './email-deps';
import { beforeClaim, claimLost, claimSends } from './send-claim';
import type { SendEmailInput, SendEmailResult } from './send-email-types';
import { createQueuedSend, findByIdempotencyKey } from './send-ledger';
import { recordSent } from './send-outcome';
import { callProvider } from './send-provider';
import { prepareSend } from './send-render';

export type { SendEmailInput, SendEmailResult } from './send-email-types';

// The send's stages each live in a module of their own (send-ledger.ts, send-claim.ts,
// send-render.ts, send-provider.ts, send-outcome.ts) because the broadcast sender
// (send-email-batch.ts) composes the same ones, with its statements shared between sends.

export interface SendEmailOptions {
  /**
   * The caller asked admitSends itself (delivery/admit-sends.ts; the journey step, with what it
   * read in a statement of its own: deliver-journey-email.ts), and it answered `send`: the send
   * does not ask again. `row` is the send of `idempotencyKey` the caller read (undefined: none yet).
   */
  admitted?: { row: EmailSendRow | undefined };
}

/**
 * The one send path (journeys and the transactional endpoint). Exactly once per idempotency key:
 * - the row is created once per key (unique index) and an accepted row is never sent again;
 * - `send_started_at` is claimed before the provider call; a retry that finds it claimed but
 *   without a provider message id cannot know whether the provider accepted the message (the
 *   worker died mid-call): SES's own events settle it, else the delivery policy decides
 *   (unknown-delivery.ts);
 * - a provider error releases the claim and is rethrown for the caller's retry, until
 *   `maxAttempts` failures, after which the send is failed + DLQ and `failed` is returned.
 */
export async function sendEmail(deps: EmailDeps, input: SendEmailInput, options: SendEmailOptions = {}): Promise<SendEmailResult> {
  const attempt = await attemptSend(deps, input, options);
  return attempt.status === 'accepted' ? recordSent(deps, attempt.row, attempt.messageId) : attempt;
}

/** A send the provider accepted, not yet recorded as sent: the caller records it (`recordSent`). */
interface AcceptedSend {
  status: 'accepted';
  row: EmailSendRow;
  messageId: string;
}

/**
 * sendEmail up to the provider's answer: an accepted send is left for the caller to record with
 * `recordSent`, for a caller whose own record of the send goes in the same statement (the journey
 * step's `email_sent`: deliver-journey-email.ts), so it costs no round trip of its own.
 */
export async function attemptSend(deps: EmailDeps, input: SendEmailInput, options: SendEmailOptions = {}): Promise<SendEmailResult | AcceptedSend> {
  let row = options.admitted === undefined ? await findByIdempotencyKey(deps.db, input.idempotencyKey) : options.admitted.row;
  if (row === undefined) {
    const template = deps.templates.find(input.templateKey);
    if (template === undefined) throw badRequest(`Unknown email template "${input.templateKey}"`);
    // the caller's, else the template's
    const category = sendCategoryKey(input.category, template.category);
    if (options.admitted === undefined) {
      // a caller's own send: the gate, the reputation breaker, the suppress window and the warm-up
      // (no holdouts nor caps: those are the journeys' and broadcasts'), in admitSends's one order
      const batch = {
        kind: 'caller' as const,
        category,
        sends: [{ key: input.idempotencyKey, to: input.to, userId: input.userId ?? input.to, suppressHours: input.suppressHours }],
      };
      const admission = (await admitSends(databaseAdmission(deps, new Date()), batch))[0]!;
      if (admission.verdict === 'skip') return { status: 'skipped', reason: admission.reason };
      if (admission.verdict === 'defer') return { status: 'deferred', reason: admission.reason, retryAt: admission.until };
    }
    row = await createQueuedSend(deps, input, category);
  }

  const settled = await beforeClaim(deps, row);
  if (settled !== undefined) return settled;
  const prepared = await prepareSend(deps, row, input.data);
  if ('status' in prepared) return prepared;
  // rendered, claimed and its links stored in one statement (send-claim.ts)
  const [claim] = await claimSends(deps.db, [{ emailSendId: row.id, subject: prepared.subject, urls: prepared.document.urls }]);
  if (!claim!.claimed) return claimLost(deps, row);
  const html = prepared.document.apply({ publicUrl: deps.publicUrl, emailSendId: row.id, linkIds: claim!.linkIds });

  const accepted = await callProvider(deps, row, prepared, html, input.maxAttempts);
  if (typeof accepted !== 'string') return accepted;
  return { status: 'accepted', row, messageId: accepted };
}
