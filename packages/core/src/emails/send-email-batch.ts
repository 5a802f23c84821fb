import { createGroupCommit } from '../concurrency/group-commit';
import type { EmailSendRow } from '../db/schema';
import type { EmailDeps } from './email-deps';
import { beforeClaim, claimLost, claimSends, type SendClaimAnswer } from './send-claim';
import type { SendEmailInput, SendEmailResult } from './send-email-types';
import { findSendsByIdempotencyKeys, queuedSendValues } from './send-ledger';
import { markAllSent, recordSent, type SentRecord } from './send-outcome';
import { callProvider } from './send-provider';
import { prepareSend } from './send-render';

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

/**
 * A row is claimed (`send_started_at`) in the flush right before its own provider call, never
 * earlier: a worker killed before the call leaves it queued (sent by the retry), one killed during
 * or after it leaves it claimed ("delivery unknown" → DLQ, never a second email).
 */
export function createBatchSender(deps: EmailDeps): BatchSender {
  const claims = createGroupCommit<ClaimRequest, SendClaimAnswer>((requests) =>
    claimSends(
      deps.db,
      requests.map((request) => ({ emailSendId: request.row.id, subject: request.subject, urls: request.urls })),
    ),
  );

  const sent = createGroupCommit<SentRecord, void>(async (records) => {
    await markAllSent(deps.db, records);
    return records.map(() => undefined);
  });

  return {
    async send(row, maxAttempts) {
      const settled = await beforeClaim(deps, row);
      if (settled !== undefined) return settled;
      const prepared = await prepareSend(deps, row);
      if ('status' in prepared) return prepared;
      const claim = await claims.add({ row, subject: prepared.keptSubject, urls: prepared.document.urls });
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
