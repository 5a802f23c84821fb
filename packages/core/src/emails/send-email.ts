import { sql, type Insertable, type RawBuilder } from 'kysely';
import { TemplateDataError } from '@waymark/email/render-email';
import { renderForSend } from '@waymark/email/render-plan';
import type { TrackableDocument } from '@waymark/email/link-tracking';
import { isSesThrottling } from '@waymark/email/ses-throttling';
import { EMAIL_SEND_ID_TAG } from '@waymark/email/ses-notification';
import type { EmailLinks } from '@waymark/email/email-template';
import { REDACTED, redactedProps, redactSecrets, secretValues } from '@waymark/email/secret-props';
import { resolveLocale } from '@waymark/email/message-catalog';
import type { Db } from '../db/database';
import { NAMED_STATEMENT, runNamed } from '../db/named-statements';
import type { EmailSendRow, EmailSendsTable, EmailStatus, JsonObject } from '../db/schema';
import { isUniqueViolation } from '../db/pg-errors';
import { badRequest } from '../errors/app-error';
import { isRequired } from '../preferences/send-gate';
import { sendRateTokens } from '../deliverability/reputation-hold';
import { admitSends } from '../delivery/admit-sends';
import { sendCategory, sendCategoryKey } from '../delivery/send-category';
import { databaseAdmission } from './database-admission';
import type { EmailDeps } from './email-deps';
import { markEmailFailed } from './email-failures';
import { claimSends } from './send-claim';
import { buildEmailLinks, listUnsubscribeHeaders } from './email-links';
import { settleUnknownDelivery, UNKNOWN_CLAIMED, UNKNOWN_STOPPED } from './unknown-delivery';
import { inSpan, SpanAttribute } from '../logging/trace-context';

/** Provider failures a send survives before it is marked failed and parked in the DLQ. */
export const DEFAULT_MAX_SEND_ATTEMPTS = 5;

export interface SendEmailInput {
  templateKey: string;
  to: string;
  data?: JsonObject;
  userId?: string | undefined;
  /** defaults to the template's category, else `journey` */
  category?: string | undefined;
  journeyStateId?: string | undefined;
  /** one email per key, ever: retries with the same key never send twice */
  idempotencyKey: string;
  /** journey `suppress.hours`; see suppress-window.ts and delivery/admit-sends.ts */
  suppressHours?: number | undefined;
  from?: string | undefined;
  /** provider failures allowed before the send fails for good (default 5) */
  maxAttempts?: number | undefined;
  /** the broadcast this email belongs to (docs/broadcasts.md): stored on the row, in its `email.*` events */
  broadcastId?: string | undefined;
  /** replaces the template's subject (a broadcast's or its variant's own subject) */
  subject?: string | undefined;
  /**
   * the recipient's language (the contact's `locale` property, BCP 47): the template's catalog
   * picks its messages by it, fr-CA → fr → the template's default (docs/email.md, "Languages")
   */
  locale?: string | undefined;
}

export type SendEmailResult =
  | { status: 'sent'; emailSendId: string }
  | { status: 'skipped'; emailSendId?: undefined; reason: string }
  /** `dropped`: an unknown delivery the delivery policy dropped (`unknown_dropped`, at most once), not parked in the DLQ */
  | { status: 'failed'; emailSendId: string; reason: string; dropped?: true }
  /**
   * inside the journey's suppress window (nothing was written), past the send rate's budget (the
   * row waits queued, its slot kept), or a delivery unknown waiting for its SES event: try again at `retryAt`
   */
  | { status: 'deferred'; emailSendId?: undefined; reason: string; retryAt: Date };

export interface SendEmailOptions {
  /**
   * The caller asked admitSends itself (delivery/admit-sends.ts; the journey step, with what it
   * read in a statement of its own: deliver-journey-email.ts), and it answered `send`: the send
   * does not ask again. `row` is the send of `idempotencyKey` the caller read (undefined: none yet).
   */
  admitted?: { row: EmailSendRow | undefined };
}

/**
 * Every column of a send's row, by name: what the send path's statements sent by name read and
 * return instead of `*` (named-statements.ts). A record, so the compiler refuses a column missing.
 */
const emailSendColumnSet: Record<keyof EmailSendRow, true> = {
  id: true,
  journeyStateId: true,
  userId: true,
  templateKey: true,
  providerMessageId: true,
  fromEmail: true,
  toEmail: true,
  subject: true,
  category: true,
  status: true,
  idempotencyKey: true,
  data: true,
  errorMessage: true,
  sentAt: true,
  deliveredAt: true,
  openedAt: true,
  clickedAt: true,
  humanOpenedAt: true,
  humanClickedAt: true,
  bouncedAt: true,
  complainedAt: true,
  sendStartedAt: true,
  sendAttempts: true,
  broadcastId: true,
  locale: true,
  createdAt: true,
  updatedAt: true,
};
export const EMAIL_SEND_COLUMNS = Object.keys(emailSendColumnSet) as (keyof EmailSendRow)[];

/** Statuses that mean the provider accepted the message: never send such a row again. */
const ACCEPTED: readonly EmailStatus[] = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained'];

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
export interface AcceptedSend {
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

/** The answer of a send that has ended (accepted, failed, or dropped as unknown); undefined while it has not. */
function endedAnswer(row: EmailSendRow): SendEmailResult | undefined {
  if (ACCEPTED.includes(row.status)) return { status: 'sent', emailSendId: row.id };
  if (row.status === 'failed') return { status: 'failed', emailSendId: row.id, reason: row.errorMessage ?? 'failed' };
  if (row.status === 'unknown_dropped') return { status: 'failed', emailSendId: row.id, reason: row.errorMessage ?? 'unknown_dropped', dropped: true };
  // its broadcast was cancelled while the send rate held it back: never sent, never to be
  if (row.status === 'cancelled') return { status: 'skipped', reason: 'cancelled' };
  return undefined;
}

/**
 * What a row's state already answers (accepted, failed, or claimed by an attempt that stopped
 * during its provider call), else waits for the send rate: undefined means render and claim now.
 */
export async function beforeClaim(deps: EmailDeps, row: EmailSendRow): Promise<SendEmailResult | undefined> {
  const ended = endedAnswer(row);
  if (ended !== undefined) return ended;
  if (row.sendStartedAt !== null) {
    const settled = await settleUnknownDelivery(deps, row, UNKNOWN_STOPPED);
    if (settled === 'ask') return failForGood(deps, row, `Delivery unknown: ${UNKNOWN_STOPPED}; not resent to avoid a duplicate`);
    if (settled !== 'resend') return settled;
  }
  // before the claim: a worker that dies while it waits leaves the row queued, not "delivery unknown"
  if (deps.sendRate === undefined) return undefined;
  // a send the reputation breaker slows is worth two tokens (deliverability/reputation-hold.ts)
  const tokens = sendRateTokens(await deps.breakerStates.read(), { required: isRequired(sendCategory(deps.categories, row.category)), to: row.toEmail });
  const slot = await deps.sendRate.acquire(row.idempotencyKey ?? row.id, tokens);
  if (slot !== undefined) return { status: 'deferred', reason: 'send_rate', retryAt: slot };
  return undefined;
}

/** A send rendered for its provider call: all but the tracked links, whose ids the caller stores. */
export interface PreparedSend {
  subject: string;
  text: string;
  links: EmailLinks;
  document: TrackableDocument;
}

/**
 * Renders a queued row; a render that cannot succeed (unknown template, bad data) fails the send
 * for good. The row keeps its secret props as the placeholder (docs/email.md, "Secret props"):
 * `live` is the caller's own data, whose values they take. A row whose secrets nobody holds any
 * more (a resend from kept data) fails for good rather than mail the placeholder.
 */
export async function prepareSend(deps: EmailDeps, row: EmailSendRow, live?: JsonObject): Promise<PreparedSend | SendEmailResult> {
  const template = deps.templates.find(row.templateKey);
  if (template === undefined) return failForGood(deps, row, `Unknown email template "${row.templateKey}"`);
  const data = withLiveSecrets(row.data, live);
  const missing = redactedProps(template, data);
  if (missing.length > 0) return failForGood(deps, row, secretsNotKept(row.templateKey, missing));
  const { links, tokens } = await buildEmailLinks(deps.tokens, deps.publicUrl, { externalId: row.userId ?? '', email: row.toEmail }, row.category);
  let rendered;
  try {
    // a secret link is a credential: never copied into tracked_links nor passed through a redirect
    rendered = await renderForSend(template, data, links, { locale: row.locale, tokens, secrets: secretValues(template, data) });
  } catch (error) {
    // bad data or a template bug: retrying cannot help
    return failForGood(deps, row, error instanceof TemplateDataError ? error.message : `Render failed: ${(error as Error).message}`);
  }
  // a subject given at send time was stored with the row, so a retry sends the same one
  const subject = row.subject === '' ? rendered.subject : row.subject;
  return { subject, text: rendered.text, links, document: rendered.document };
}

/** The kept data with each secret prop the caller still holds put back (undefined `live`: the kept data). */
function withLiveSecrets(kept: JsonObject, live: JsonObject | undefined): JsonObject {
  if (live === undefined) return kept;
  const restored: JsonObject = { ...kept };
  for (const [prop, value] of Object.entries(kept)) if (value === REDACTED && live[prop] !== undefined) restored[prop] = live[prop];
  return restored;
}

/** Why a send from kept data cannot go out (the DLQ retry says the same before it tries). */
export function secretsNotKept(templateKey: string, props: readonly string[]): string {
  return `Template "${templateKey}" carries secret props (${props.join(', ')}) that are not kept after the send; it cannot be sent again from kept data: the person asks for a new one`;
}

/** Another attempt holds the claim (or has finished): sent if it was accepted, else a delivery unknown (unknown-delivery.ts). */
export async function claimLost(deps: EmailDeps, row: EmailSendRow): Promise<SendEmailResult> {
  const current = await deps.db.selectFrom('emailSends').selectAll().where('id', '=', row.id).executeTakeFirst();
  const ended = current === undefined ? undefined : endedAnswer(current);
  if (ended !== undefined) return ended;
  const settled = current === undefined ? 'ask' : await settleUnknownDelivery(deps, current, UNKNOWN_CLAIMED);
  if (settled === 'ask') return failForGood(deps, current ?? row, `Delivery unknown: ${UNKNOWN_CLAIMED}; not resent to avoid a duplicate`);
  // released: this attempt renders and claims it again at its caller's next try
  return settled === 'resend' ? { status: 'deferred', reason: 'delivery_unknown', retryAt: new Date() } : settled;
}

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
      return failForGood(deps, row, `Provider error after ${released.sendAttempts} attempt(s): ${(error as Error).message}`);
    }
    throw error;
  }
}

/**
 * Records one accepted send; `also`: further common table expressions for the same statement,
 * which may reference `sent` (the updated row's id). A provider message id that another send already holds (the unique
 * index; SES never repeats one, the SES emulator's random 9-digit ids do about once per 100,000)
 * cannot be stored: the message did leave, so the send ends "delivery unknown" in the DLQ at once
 * instead of throwing, which would fail the caller's whole step (a broadcast's chunks) into retries.
 */
export async function recordSent(deps: EmailDeps, row: EmailSendRow, messageId: string, also?: RawBuilder<unknown>): Promise<SendEmailResult> {
  try {
    await markSent(deps.db, row.id, messageId, also);
    return { status: 'sent', emailSendId: row.id };
  } catch (error) {
    if (!isUniqueViolation(error, 'email_sends_provider_message_idx')) throw error;
    return failForGood(deps, row, `Delivery unknown: the provider accepted it as ${messageId}, a message id another send already holds`);
  }
}

/**
 * `sent`, unless SES's own events got there first (event publishing: the Send event settles a send
 * by its tag, and a Delivery or Bounce may follow before the attempt records SES's answer): a
 * send never moves backwards.
 */
export const SENT_STATUS = sql`case when status in ('queued', 'rendered', 'failed', 'unknown_dropped') then 'sent' else status end`;

/** Marks one accepted send sent, with `also` (see recordSent) in the same statement. */
export async function markSent(db: Db, emailSendId: string, messageId: string, also?: RawBuilder<unknown>): Promise<void> {
  const sentAt = new Date();
  await sql`${NAMED_STATEMENT}
    with sent as (
      update email_sends set status = ${SENT_STATUS}, provider_message_id = ${messageId}, sent_at = coalesce(sent_at, ${sentAt}), error_message = null, updated_at = ${sentAt}
      where id = ${emailSendId}
      returning id
    )${also === undefined ? sql`` : sql`, ${also}`}
    select id from sent`.execute(db);
}

async function findByIdempotencyKey(db: Db, idempotencyKey: string): Promise<EmailSendRow | undefined> {
  return db.selectFrom('emailSends').selectAll().where('idempotencyKey', '=', idempotencyKey).executeTakeFirst();
}

/** The existing sends of `idempotencyKeys` in one query, by key: what a caller sending a batch passes as `admitted.row`. */
export async function findSendsByIdempotencyKeys(db: Db, idempotencyKeys: readonly string[]): Promise<Map<string, EmailSendRow>> {
  if (idempotencyKeys.length === 0) return new Map();
  const rows = await db
    .selectFrom('emailSends')
    .selectAll()
    .where('idempotencyKey', 'in', [...idempotencyKeys])
    .execute();
  return new Map(rows.map((row) => [row.idempotencyKey!, row]));
}

/** The queued row of a send, as first written. */
export function queuedSendValues(deps: Pick<EmailDeps, 'from' | 'templates'>, input: SendEmailInput, category: string): Insertable<EmailSendsTable> {
  const template = deps.templates.find(input.templateKey);
  const data = input.data ?? {};
  return {
    idempotencyKey: input.idempotencyKey,
    templateKey: input.templateKey,
    toEmail: input.to,
    fromEmail: input.from ?? deps.from,
    userId: input.userId ?? null,
    journeyStateId: input.journeyStateId ?? null,
    broadcastId: input.broadcastId ?? null,
    ...(input.subject === undefined ? {} : { subject: input.subject }),
    category,
    // chosen once, with the row: every attempt renders the same language, and the studio shows it
    locale: template === undefined ? null : resolveLocale(template.messages, input.locale),
    // secret props are used for the send and kept as the placeholder (docs/email.md, "Secret props")
    data: JSON.stringify(template === undefined ? data : redactSecrets(template, data)),
    status: 'queued',
  };
}

async function createQueuedSend(deps: EmailDeps, input: SendEmailInput, category: string): Promise<EmailSendRow> {
  // by name: every journey email writes one (a shape with a subject given, one without)
  const [inserted] = await runNamed(
    deps.db,
    deps.db
      .insertInto('emailSends')
      .values(queuedSendValues(deps, input, category))
      .onConflict((oc) => oc.column('idempotencyKey').doNothing())
      .returning(EMAIL_SEND_COLUMNS),
  );
  // a concurrent attempt with the same key created it first: continue with that row
  return inserted ?? (await findByIdempotencyKey(deps.db, input.idempotencyKey))!;
}

export async function failForGood(deps: EmailDeps, row: EmailSendRow, reason: string): Promise<SendEmailResult> {
  const failed = await markEmailFailed(deps.db, row.id, reason);
  if (failed === undefined) {
    const current = await deps.db.selectFrom('emailSends').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
    if (ACCEPTED.includes(current.status)) return { status: 'sent', emailSendId: current.id };
    return { status: 'failed', emailSendId: current.id, reason: current.errorMessage ?? reason };
  }
  deps.logger?.warn({ emailSendId: row.id, templateKey: row.templateKey, reason }, 'email send failed for good; recorded in the DLQ');
  return { status: 'failed', emailSendId: row.id, reason };
}
