import { sql, type Kysely } from 'kysely';

/**
 * The reputation breaker (docs/email.md, "Reputation breaker"):
 *
 * - reputation_counts: per hour, group (marketing, transactional) and mailbox provider, the sends
 *   that reached a verdict (delivered or bounced for good), the hard bounces and the complaints,
 *   counted as SES's events arrive, so a rate over the window sums at most a day of hourly rows
 *   instead of scanning email_sends.
 * - reputation_breakers: the breaker's state per group and provider (no row: ok); `clear_since`
 *   is when the rates were last seen back under the slow thresholds (the cooldown's start).
 * - broadcasts.paused_reason: `reputation` for a broadcast the breaker paused, so its resume
 *   resumes it and no other.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table reputation_counts (
      send_group text not null check (send_group in ('marketing', 'transactional')),
      provider text not null,
      hour timestamptz not null,
      sends integer not null default 0,
      bounces integer not null default 0,
      complaints integer not null default 0,
      primary key (send_group, provider, hour)
    );
    create table reputation_breakers (
      send_group text not null check (send_group in ('marketing', 'transactional')),
      provider text not null,
      state text not null check (state in ('ok', 'slowed', 'paused')),
      since timestamptz not null,
      clear_since timestamptz,
      baseline jsonb,
      updated_at timestamptz not null default now(),
      primary key (send_group, provider)
    );
    alter table broadcasts add column paused_reason text;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table broadcasts drop column paused_reason;
    drop table reputation_breakers;
    drop table reputation_counts;
  `.execute(db);
}
