import type { EmailSendRow } from '../db/schema';
import { badRequest } from '../errors/app-error';
import { admitSends, type AdmissionBatch, type AdmissionDefer, type AdmissionPorts, type AdmissionSkip } from '../delivery/admit-sends';
import { sendCategoryKey } from '../delivery/send-category';
import { databaseAdmission } from './database-admission';
import type { EmailDeps } from './email-deps';
import { beforeClaim, claimLost, claimSends } from './send-claim';
import type { SendEmailInput, SendEmailResult } from './send-email-types';
import { createQueuedSend, findByIdempotencyKey } from './send-ledger';
import { endRefused, recordSent } from './send-outcome';
import { callProvider } from './send-provider';
import { prepareSend } from './send-render';

export type { SendEmailInput, SendEmailResult } from './send-email-types';

// The send's stages each live in a module of their own (send-ledger.ts, send-claim.ts,
// send-render.ts, send-provider.ts, send-outcome.ts) because the broadcast sender
// (send-email-batch.ts) composes the same ones, with its statements shared between sends.

export interface SendEmailOptions {
  /**
   * The caller read the send of `idempotencyKey` itself (`row`; undefined: none yet) and asked
   * admitSends of a new send itself, with `ports` (delivery/admit-sends.ts; the journey step, with
   * the gate it read in its one statement: deliver-journey-email.ts): the send does not ask again.
   * A send admitted before is asked again with `ports` and `again` (its sends `admittedBefore`).
   */
  admitted?: { row: EmailSendRow | undefined; ports: AdmissionPorts; again: AdmissionBatch };
}

/**
 * The one send path (journeys and the transactional endpoint). Exactly once per idempotency key:
 * - the row is created once per key (unique index) and an accepted row is never sent again;
 * - `send_started_at` is claimed before the provider call; a retry that finds it claimed but
 *   without a provider message id cannot know whether the provider accepted the message (the
 *   worker died mid-call): SES's own events settle it, else the delivery policy decides
 *   (unknown-delivery.ts);
 * - a provider error releases the claim and is rethrown for the caller's retry, until
 *   `maxAttempts` failures, after which the send is failed + DLQ and `failed` is returned;
 * - a retry of a send not yet accepted asks the send gate again before it claims, and one the
 *   person has since been suppressed or unsubscribed from ends `cancelled`, answered `skipped`.
 */
export async function sendEmail(deps: EmailDeps, input: SendEmailInput, options: SendEmailOptions = {}): Promise<SendEmailResult> {
  const attempt = await attemptSend(deps, input, options);
  if (attempt.status === 'accepted') return recordSent(deps, attempt.row, attempt.messageId);
  return attempt.status === 'refused' ? admissionAnswer(attempt.admission) : attempt;
}

/** What a send admitSends does not let through answers: skipped (nothing sent), or deferred until the rule lets it. */
function admissionAnswer(admission: AdmissionSkip | AdmissionDefer): SendEmailResult {
  return admission.verdict === 'skip'
    ? { status: 'skipped', reason: admission.reason }
    : { status: 'deferred', reason: admission.reason, retryAt: admission.until };
}

/**
 * A caller's own send as admitSends asks it: the gate, the reputation breaker, the suppress window
 * and the warm-up (no holdouts nor caps: those are the journeys' and broadcasts').
 */
function callerBatch(input: SendEmailInput, to: string, category: string, admittedBefore: boolean): AdmissionBatch {
  return {
    kind: 'caller',
    category,
    sends: [{ key: input.idempotencyKey, to, userId: input.userId ?? to, suppressHours: input.suppressHours, admittedBefore }],
  };
}

/** A send the provider accepted, not yet recorded as sent: the caller records it (`recordSent`). */
interface AcceptedSend {
  status: 'accepted';
  row: EmailSendRow;
  messageId: string;
}

/**
 * A send admitted before that admitSends, asked again, does not let through now; a skip has ended
 * its row (`endRefused`). The caller records it as it records a first attempt's answer.
 */
interface RefusedSend {
  status: 'refused';
  admission: AdmissionSkip | AdmissionDefer;
}

/**
 * sendEmail up to the provider's answer: an accepted send is left for the caller to record with
 * `recordSent`, for a caller whose own record of the send goes in the same statement (the journey
 * step's `email_sent`: deliver-journey-email.ts), so it costs no round trip of its own.
 */
export async function attemptSend(
  deps: EmailDeps,
  input: SendEmailInput,
  options: SendEmailOptions = {},
): Promise<SendEmailResult | AcceptedSend | RefusedSend> {
  let row = options.admitted === undefined ? await findByIdempotencyKey(deps.db, input.idempotencyKey) : options.admitted.row;
  const admittedBefore = row !== undefined;
  if (row === undefined) {
    const template = deps.templates.find(input.templateKey);
    if (template === undefined) throw badRequest(`Unknown email template "${input.templateKey}"`);
    // the caller's, else the template's
    const category = sendCategoryKey(input.category, template.category);
    if (options.admitted === undefined) {
      const admission = (await admitSends(databaseAdmission(deps, new Date()), callerBatch(input, input.to, category, false)))[0]!;
      if (admission.verdict !== 'send') return admissionAnswer(admission);
    }
    row = await createQueuedSend(deps, input, category);
  }

  const settled = await beforeClaim(deps, row);
  if (settled !== undefined) return settled;
  if (admittedBefore) {
    // Asked again right before the claim: an earlier attempt was admitted but sent nothing (a
    // provider error, a send-rate wait, a delivery unknown now sent again), and the person may have
    // been suppressed or have unsubscribed since. Not earlier: a send the provider accepted answers
    // `sent` whatever happened after, and a delivery unknown must settle first.
    const ports = options.admitted?.ports ?? databaseAdmission(deps, new Date());
    const again = options.admitted?.again ?? callerBatch(input, row.toEmail, row.category, true);
    const admission = (await admitSends(ports, again))[0]!;
    if (admission.verdict === 'skip' && !(await endRefused(deps.db, row, admission.reason))) return claimLost(deps, row);
    if (admission.verdict !== 'send') return { status: 'refused', admission };
  }
  const prepared = await prepareSend(deps, row, input.data, input.subject);
  if ('status' in prepared) return prepared;
  // rendered, claimed and its links stored in one statement (send-claim.ts)
  const [claim] = await claimSends(deps.db, [{ emailSendId: row.id, subject: prepared.keptSubject, urls: prepared.document.urls }]);
  if (!claim!.claimed) return claimLost(deps, row);
  const html = prepared.document.apply({ publicUrl: deps.publicUrl, emailSendId: row.id, linkIds: claim!.linkIds });

  const accepted = await callProvider(deps, row, prepared, html, input.maxAttempts);
  if (typeof accepted !== 'string') return accepted;
  return { status: 'accepted', row, messageId: accepted };
}
