import { sql, type Kysely } from 'kysely';

/**
 * Reset and invitation links are secret props (docs/email.md, "Secret props"): the send path
 * keeps them as `[redacted]` from now on. This redacts the ones kept before, in the sends and in
 * the DLQ entries copied from them, so no live link stays readable on the admin plane (an
 * invitation lives for 7 days). Irreversible by design: `down` restores nothing.
 */
const SECRETS = [
  { templateKey: 'auth-password-reset', prop: 'resetUrl' },
  { templateKey: 'auth-invitation', prop: 'acceptUrl' },
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const { templateKey, prop } of SECRETS) {
    const redacted = sql`jsonb_build_object(${prop}::text, '[redacted]'::text)`;
    await sql`update email_sends set data = data || ${redacted} where template_key = ${templateKey} and data ? ${prop}`.execute(db);
    await sql`
      update dlq_entries set payload = jsonb_set(payload, '{data}', (payload -> 'data') || ${redacted})
      where source = 'email' and payload ->> 'templateKey' = ${templateKey} and payload -> 'data' ? ${prop}`.execute(db);
  }
}

export async function down(): Promise<void> {
  // the links are gone: nothing to restore
}
