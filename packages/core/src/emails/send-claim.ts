import { sql } from 'kysely';
import type { Db } from '../db/database';
import { NAMED_STATEMENT } from '../db/named-statements';
import type { EmailSendRow } from '../db/schema';
import { isRequired } from '../preferences/send-gate';
import { sendRateTokens } from '../deliverability/reputation-hold';
import { sendCategory } from '../delivery/send-category';
import type { EmailDeps } from './email-deps';
import type { SendEmailResult } from './send-email-types';
import { endedAnswer, failForGood } from './send-outcome';
import { settleUnknownDelivery, UNKNOWN_CLAIMED, UNKNOWN_STOPPED } from './unknown-delivery';

// The claim of a send, as both senders take it: what stands before it (beforeClaim), the claim with
// its tracked links (claimSends), and what a lost claim answers (claimLost).

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

/** A rendered send about to call its provider: its row, the subject it renders with, the URLs its links track. */
export interface SendClaim {
  emailSendId: string;
  subject: string;
  urls: readonly string[];
}

export interface SendClaimAnswer {
  /** false: another attempt holds the claim, or the send has ended (claimLost says which) */
  claimed: boolean;
  /** tracked link id by original URL */
  linkIds: Map<string, string>;
}

/**
 * The claims of sends about to call their provider, each with its tracked links, in ONE statement
 * (a journey send's one, or a broadcast flush's many): one link row per send and URL (a retry
 * reuses the ids its earlier attempt stored), and `send_started_at` set only on a row nobody has
 * claimed or sent. Before it a worker that dies leaves the row queued (the retry renders again);
 * after it, claimed ("delivery unknown", never a second email): docs/email.md, "Exactly once".
 */
export async function claimSends(db: Db, claims: readonly SendClaim[]): Promise<SendClaimAnswer[]> {
  if (claims.length === 0) return [];
  const links = claims.flatMap((claim) => claim.urls.map((url) => ({ emailSendId: claim.emailSendId, url })));
  // arrays, not a list of values: one text for any number of sends and links, so it goes by name
  // (each connection plans it a few times, not on every send: named-statements.ts)
  const result = await sql<{ kind: 'link' | 'claim'; id: string; emailSendId: string; originalUrl: string | null }>`${NAMED_STATEMENT}
    with links as (
      insert into tracked_links (email_send_id, original_url)
      select * from unnest(${links.map((link) => link.emailSendId)}::uuid[], ${links.map((link) => link.url)}::text[])
      on conflict (email_send_id, original_url) do update set updated_at = now()
      returning id, email_send_id, original_url
    ),
    claimed as (
      update email_sends e set subject = v.subject, status = 'rendered', send_started_at = now(), updated_at = now()
      from unnest(${claims.map((claim) => claim.emailSendId)}::uuid[], ${claims.map((claim) => claim.subject)}::text[]) as v(id, subject)
      where e.id = v.id and e.send_started_at is null and e.provider_message_id is null and e.status in ('queued', 'rendered')
      returning e.id
    )
    select 'link' as kind, id, email_send_id, original_url from links
    union all select 'claim', id, id, null from claimed`.execute(db);
  const answers = new Map(claims.map((claim) => [claim.emailSendId, { claimed: false, linkIds: new Map<string, string>() }]));
  for (const row of result.rows) {
    const answer = answers.get(row.emailSendId)!;
    if (row.kind === 'claim') answer.claimed = true;
    else answer.linkIds.set(row.originalUrl!, row.id);
  }
  return claims.map((claim) => answers.get(claim.emailSendId)!);
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
