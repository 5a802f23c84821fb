import { sql, type Kysely } from 'kysely';

/**
 * The suppression of an address that outlives its contact (docs/email.md, "Suppression outlives
 * the contact"): when a contact is deleted or erased, the bounce, complaint or global unsubscribe
 * its preference rows held is kept here as a SHA-256 of the normalised address (lower(btrim(email)),
 * hex), so the send gate still refuses the address while the personal data is gone. One row per
 * address and reason: a resubscribe lifts `unsubscribed` only, an operator's un-suppress the others.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table address_suppressions (
      address_hash text not null check (address_hash ~ '^[0-9a-f]{64}$'),
      reason text not null check (reason in ('bounced', 'complained', 'manual', 'unsubscribed')),
      suppressed_at timestamptz not null,
      created_at timestamptz not null default now(),
      primary key (address_hash, reason)
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists address_suppressions`.execute(db);
}
