import { sql, type Kysely } from 'kysely';

/**
 * Frequency caps of the delivery policy (docs/journeys.md, "The delivery policy") count a person's
 * sends from email_sends. Between the check and the send path writing its row, an admitted send is
 * in flight: a claim (one row per send's idempotency key) counts it meanwhile, so two sends decided
 * at the same moment under one contact's lock cannot both take the last slot. A claim is deleted
 * when the send path answers and is ignored after a few minutes (a worker that died mid-send).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table delivery_cap_claims (
      idempotency_key text primary key,
      email text not null,
      category text not null,
      created_at timestamptz not null
    );
    create index delivery_cap_claims_email_idx on delivery_cap_claims (email, created_at);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists delivery_cap_claims;`.execute(db);
}
