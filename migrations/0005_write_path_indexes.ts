import { sql, type Kysely } from 'kysely';

/**
 * Cheaper writes on the two hottest update paths.
 *
 * - contacts: every ingested event moves `lastSeenAt`. With `last_seen_at` indexed,
 *   each of those updates was a non-HOT update that added entries to every contact index,
 *   trigram GIN indexes included (~4× the cost of a HOT update, measured). The index is dropped
 *   and pages keep 10% free so the new row version fits beside the old one. The admin list
 *   (ordered by lastSeenAt) already counts every matching contact for `total`; its top-N sort
 *   rides on that same scan.
 * - email_sends: email_sends_to_created_idx (0004) repeated email_sends_to_idx (0001): same
 *   expression, same order; every insert and every non-HOT update paid for both.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index if exists contacts_last_seen_idx;
    alter table contacts set (fillfactor = 90);
    drop index if exists email_sends_to_created_idx;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index if not exists contacts_last_seen_idx on contacts (last_seen_at desc, id);
    alter table contacts reset (fillfactor);
    create index if not exists email_sends_to_created_idx on email_sends (lower(to_email), created_at desc);
  `.execute(db);
}
