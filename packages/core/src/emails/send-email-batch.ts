import { sql } from 'kysely';
import { createGroupCommit } from '../concurrency/group-commit';
import type { EmailSendRow } from '../db/schema';
import type { EmailDeps } from './email-deps';
import {
  beforeClaim,
  callProvider,
  claimLost,
  findSendsByIdempotencyKeys,
  prepareSend,
  recordSent,
  queuedSendValues,
  SENT_STATUS,
  type SendEmailInput,
  type SendEmailResult,
} from './send-email';

/**
 * The queued rows of many sends in one statement (a broadcast chunk's): each key's row, created
 * now or found from an earlier attempt. Rows that exist are left as they are (ON CONFLICT DO
 * NOTHING), exactly as sendEmail's own insert does.
 */
export async function createQueuedSends(deps: EmailDeps, sends: readonly { input: SendEmailInput; category: string }[]): Promise<Map<string, EmailSendRow>> {
  if (sends.length === 0) return new Map();
  const inserted = await deps.db
    .insertInto('emailSends')
    .values(sends.map((send) => queuedSendValues(deps, send.input, send.category)))
    .onConflict((oc) => oc.column('idempotencyKey').doNothing())
    .returningAll()
    .execute();
  const rows = new Map(inserted.map((row) => [row.idempotencyKey!, row]));
  // created first by a concurrent attempt with the same key: continue with that row
  const missing = sends.map((send) => send.input.idempotencyKey).filter((key) => !rows.has(key));
  for (const [key, row] of await findSendsByIdempotencyKeys(deps.db, missing)) rows.set(key, row);
  return rows;
}

export interface BatchSender {
  /**
   * sendEmail for a row that exists (createQueuedSends), with the same guarantees, but the claim
   * (with the tracked links) and the record of the accepted send are written together with those
   * of the other sends in flight (group commit): one statement each per flush, not per send.
   */
  send(row: EmailSendRow, maxAttempts?: number): Promise<SendEmailResult>;
}

interface ClaimRequest {
  row: EmailSendRow;
  subject: string;
  urls: readonly string[];
}

interface ClaimAnswer {
  claimed: boolean;
  linkIds: Map<string, string>;
}

interface SentRecord {
  emailSendId: string;
  messageId: string;
  sentAt: Date;
}

/**
 * A row is claimed (`send_started_at`) in the flush right before its own provider call, never
 * earlier: a worker killed before the call leaves it queued (sent by the retry), one killed during
 * or after it leaves it claimed ("delivery unknown" → DLQ, never a second email).
 */
export function createBatchSender(deps: EmailDeps): BatchSender {
  const claims = createGroupCommit<ClaimRequest, ClaimAnswer>(async (requests) => {
    const links = requests.flatMap((request) => request.urls.map((url) => sql`(${request.row.id}::uuid, ${url})`));
    const claimValues = sql.join(requests.map((request) => sql`(${request.row.id}::uuid, ${request.subject})`));
    // links first, as sendEmail stores them before its claim; one link row per send and URL,
    // and a retry reuses the ids its earlier attempt stored
    const result = await sql<{ kind: 'link' | 'claim'; id: string; emailSendId: string; originalUrl: string | null }>`
      with ${
        links.length === 0
          ? sql`links as (select null::uuid as id, null::uuid as email_send_id, null::text as original_url where false)`
          : sql`links as (
        insert into tracked_links (email_send_id, original_url) values ${sql.join(links)}
        on conflict (email_send_id, original_url) do update set updated_at = now()
        returning id, email_send_id, original_url
      )`
      },
      claimed as (
        update email_sends e set subject = v.subject, status = 'rendered', send_started_at = now(), updated_at = now()
        from (values ${claimValues}) as v(id, subject)
        where e.id = v.id and e.send_started_at is null and e.provider_message_id is null and e.status in ('queued', 'rendered')
        returning e.id
      )
      select 'link' as kind, id, email_send_id, original_url from links
      union all select 'claim', id, id, null from claimed`.execute(deps.db);
    const answers = new Map(requests.map((request) => [request.row.id, { claimed: false, linkIds: new Map<string, string>() }]));
    for (const row of result.rows) {
      const answer = answers.get(row.emailSendId)!;
      if (row.kind === 'claim') answer.claimed = true;
      else answer.linkIds.set(row.originalUrl!, row.id);
    }
    return requests.map((request) => answers.get(request.row.id)!);
  });

  const sent = createGroupCommit<SentRecord, void>(async (records) => {
    const values = sql.join(records.map((record) => sql`(${record.emailSendId}::uuid, ${record.messageId}, ${record.sentAt}::timestamptz)`));
    await sql`
      update email_sends e set status = ${SENT_STATUS}, provider_message_id = v.message_id, sent_at = coalesce(e.sent_at, v.sent_at), error_message = null, updated_at = v.sent_at
      from (values ${values}) as v(id, message_id, sent_at)
      where e.id = v.id`.execute(deps.db);
    return records.map(() => undefined);
  });

  return {
    async send(row, maxAttempts) {
      const settled = await beforeClaim(deps, row);
      if (settled !== undefined) return settled;
      const prepared = await prepareSend(deps, row);
      if ('status' in prepared) return prepared;
      const claim = await claims.add({ row, subject: prepared.subject, urls: prepared.document.urls });
      if (!claim.claimed) return claimLost(deps, row);
      const html = prepared.document.apply({ publicUrl: deps.publicUrl, emailSendId: row.id, linkIds: claim.linkIds });
      const accepted = await callProvider(deps, row, prepared, html, maxAttempts);
      if (typeof accepted !== 'string') return accepted;
      // one bad row (a provider message id seen before) fails its whole flush: each send of a
      // failed flush records itself alone, so only the bad one ends otherwise (recordSent)
      try {
        await sent.add({ emailSendId: row.id, messageId: accepted, sentAt: new Date() });
        return { status: 'sent', emailSendId: row.id };
      } catch {
        return recordSent(deps, row, accepted);
      }
    },
  };
}
