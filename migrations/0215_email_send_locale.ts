import { sql, type Kysely } from 'kysely';

/**
 * email_sends.locale: the language a send was rendered in (docs/email.md, "Languages"): the
 * template catalog's locale for the recipient's `locale` property, chosen when the row is queued
 * so a retry renders the same language. Null on the sends from before it: they were in the
 * template's only language. Adding a nullable column without a default rewrites nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table email_sends add column locale text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table email_sends drop column locale`.execute(db);
}
