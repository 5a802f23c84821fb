import { sql, type Kysely } from 'kysely';

/**
 * The outbox of Waymark's own emails (docs/email.md, "System emails"): a password reset's or an
 * invitation's email is kept here in the transaction that stores its token or invitation, an
 * alert notice before its run is started, so an email whose run Temporal could not start (an
 * outage) is started by the worker's relay once Temporal is back, even if the process that kept it
 * stopped in between. The row holds the send input sealed as the run's input is
 * (packages/core/src/emails/sealed-input.ts): neither the link nor the address in clear. Keyed by
 * the send's idempotency key, which also names the run, so a row started twice starts one run.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table system_email_outbox (
      idempotency_key text primary key,
      sealed text not null,
      attempts integer not null default 0,
      last_error text,
      next_attempt_at timestamptz not null,
      created_at timestamptz not null default now()
    );
    create index system_email_outbox_due_idx on system_email_outbox (next_attempt_at);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists system_email_outbox`.execute(db);
}
