import { sql } from 'kysely';
import type { Db } from '../db/database';
import { NAMED_STATEMENT } from '../db/named-statements';

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
