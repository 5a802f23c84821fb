import { sql, type Kysely } from 'kysely';

/**
 * email_sends.erased_at: when an erasure (DELETE /v1/contacts/{id}) emptied the send's template
 * data and subject (docs/operations.md, "Contacts"). The row stays as delivery history; what was
 * rendered from the person's data goes, so the studio's view of it answers 404 and a send whose
 * outcome was unknown is never sent again. Adding a nullable column without a default rewrites nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table email_sends add column erased_at timestamptz`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table email_sends drop column if exists erased_at`.execute(db);
}
