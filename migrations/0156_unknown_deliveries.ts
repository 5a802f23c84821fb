import { sql, type Kysely } from 'kysely';

/**
 * Unknown deliveries settle themselves (docs/email.md, "Exactly once").
 *
 * - `email_sends.status` gains `unknown_dropped`: a send whose attempt stopped during the provider
 *   call, which the delivery policy drops rather than risk a second email (at most once) when SES
 *   event publishing is off. The status check is rebuilt from the values it allows now plus this
 *   one, so another migration that adds a status of its own keeps it, whichever runs first.
 * - `email_provider_notifications` keeps the send each notification was about (when known) and the
 *   event's kind, so bounces and complaints are recorded per send, with its category and recipient
 *   reachable by a join (a sender-reputation breaker reads them by send and time).
 */
async function statusCheckValues(db: Kysely<unknown>): Promise<string[]> {
  const result = await sql<{ definition: string }>`
    select pg_get_constraintdef(c.oid) as definition from pg_constraint c
    where c.conrelid = 'email_sends'::regclass and c.contype = 'c' and pg_get_constraintdef(c.oid) like '%status%'`.execute(db);
  const definition = result.rows[0]?.definition ?? '';
  return [...definition.matchAll(/'([a-z_]+)'/g)].map((match) => match[1]!);
}

async function replaceStatusCheck(db: Kysely<unknown>, values: readonly string[]): Promise<void> {
  const names = await sql<{ name: string }>`
    select c.conname as name from pg_constraint c
    where c.conrelid = 'email_sends'::regclass and c.contype = 'c' and pg_get_constraintdef(c.oid) like '%status%'`.execute(db);
  for (const { name } of names.rows) await sql`alter table email_sends drop constraint ${sql.id(name)}`.execute(db);
  await sql`alter table email_sends add constraint email_sends_status_check check (status in (${sql.join(values.map((value) => sql.lit(value)))}))`.execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const values = await statusCheckValues(db);
  await replaceStatusCheck(db, [...new Set([...values, 'unknown_dropped'])]);
  await sql`
    alter table email_provider_notifications add column email_send_id uuid, add column event_type text;
    create index email_provider_notifications_send_idx on email_provider_notifications (email_send_id) where email_send_id is not null;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index if exists email_provider_notifications_send_idx;
    alter table email_provider_notifications drop column if exists email_send_id, drop column if exists event_type;
    update email_sends set status = 'failed' where status = 'unknown_dropped';
  `.execute(db);
  const values = await statusCheckValues(db);
  await replaceStatusCheck(
    db,
    values.filter((value) => value !== 'unknown_dropped'),
  );
}
