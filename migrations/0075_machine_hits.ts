import { sql, type Kysely } from 'kysely';

/**
 * Machine opens and clicks told apart from people (docs/email.md, "Machine opens and clicks").
 *
 * - email_sends: human_opened_at / human_clicked_at beside the first-hit-of-any-kind opened_at /
 *   clicked_at. Existing sends were counted as people until now, so they keep that reading.
 * - email_opens: every pixel fetch (until now only the first set opened_at and nothing else was
 *   kept), with its address, user agent and verdict, so an email can show opens {human, machine}.
 *   Each opened send gets one row for its recorded first open.
 * - link_clicks: machine / machine_reason per click.
 * - tracked_links.honeypot: the invisible link of every tracked email; its row is created on its
 *   first click (its id is the send's id), so sends nobody scanned carry none.
 * - The outbound email.opened / email.clicked webhooks fire on the first human hit.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table email_sends add column human_opened_at timestamptz, add column human_clicked_at timestamptz;
    update email_sends set human_opened_at = opened_at, human_clicked_at = clicked_at where opened_at is not null or clicked_at is not null;

    alter table tracked_links add column honeypot boolean not null default false;

    alter table link_clicks
      add column machine boolean not null default false,
      add column machine_reason text check (machine_reason in ('head_request', 'scanner_user_agent', 'apple_mpp', 'too_fast', 'honeypot')),
      add constraint link_clicks_machine_reason check (machine = (machine_reason is not null));

    create table email_opens (
      id uuid primary key default gen_random_uuid(),
      email_send_id uuid not null references email_sends (id) on delete cascade,
      ip_address text,
      user_agent text,
      machine boolean not null default false,
      machine_reason text check (machine_reason in ('head_request', 'scanner_user_agent', 'apple_mpp', 'too_fast', 'honeypot')),
      opened_at timestamptz not null default now(),
      constraint email_opens_machine_reason check (machine = (machine_reason is not null))
    );
    create index email_opens_send_idx on email_opens (email_send_id, opened_at);
    insert into email_opens (email_send_id, opened_at) select id, opened_at from email_sends where opened_at is not null;

    create or replace function email_sends_outbound() returns trigger language plpgsql as $$
    declare
      data jsonb := jsonb_build_object(
        'emailId', new.id, 'userId', new.user_id, 'to', new.to_email, 'templateKey', new.template_key, 'category', new.category,
        'journeyStateId', new.journey_state_id, 'providerMessageId', new.provider_message_id
      );
      was_sent boolean := tg_op = 'UPDATE' and old.sent_at is not null;
      was_delivered boolean := tg_op = 'UPDATE' and old.delivered_at is not null;
      was_opened boolean := tg_op = 'UPDATE' and old.human_opened_at is not null;
      was_clicked boolean := tg_op = 'UPDATE' and old.human_clicked_at is not null;
      was_bounced boolean := tg_op = 'UPDATE' and old.bounced_at is not null;
      was_complained boolean := tg_op = 'UPDATE' and old.complained_at is not null;
      was_failed boolean := tg_op = 'UPDATE' and old.status = 'failed';
    begin
      if new.sent_at is not null and not was_sent then perform waymark_record_outbound('email.sent', data); end if;
      if new.delivered_at is not null and not was_delivered then perform waymark_record_outbound('email.delivered', data); end if;
      if new.human_opened_at is not null and not was_opened then perform waymark_record_outbound('email.opened', data); end if;
      if new.human_clicked_at is not null and not was_clicked then perform waymark_record_outbound('email.clicked', data); end if;
      if new.bounced_at is not null and not was_bounced then perform waymark_record_outbound('email.bounced', data); end if;
      if new.complained_at is not null and not was_complained then perform waymark_record_outbound('email.complained', data); end if;
      if new.status = 'failed' and not was_failed then
        perform waymark_record_outbound('email.failed', data || jsonb_build_object('error', new.error_message));
      end if;
      return null;
    end;
    $$;
    drop trigger email_sends_outbound_update on email_sends;
    create trigger email_sends_outbound_update after update on email_sends for each row
      when (
        (old.sent_at is null and new.sent_at is not null) or (old.delivered_at is null and new.delivered_at is not null)
        or (old.human_opened_at is null and new.human_opened_at is not null) or (old.human_clicked_at is null and new.human_clicked_at is not null)
        or (old.bounced_at is null and new.bounced_at is not null) or (old.complained_at is null and new.complained_at is not null)
        or (old.status is distinct from new.status and new.status = 'failed')
      )
      execute function email_sends_outbound();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function email_sends_outbound() returns trigger language plpgsql as $$
    declare
      data jsonb := jsonb_build_object(
        'emailId', new.id, 'userId', new.user_id, 'to', new.to_email, 'templateKey', new.template_key, 'category', new.category,
        'journeyStateId', new.journey_state_id, 'providerMessageId', new.provider_message_id
      );
      was_sent boolean := tg_op = 'UPDATE' and old.sent_at is not null;
      was_delivered boolean := tg_op = 'UPDATE' and old.delivered_at is not null;
      was_opened boolean := tg_op = 'UPDATE' and old.opened_at is not null;
      was_clicked boolean := tg_op = 'UPDATE' and old.clicked_at is not null;
      was_bounced boolean := tg_op = 'UPDATE' and old.bounced_at is not null;
      was_complained boolean := tg_op = 'UPDATE' and old.complained_at is not null;
      was_failed boolean := tg_op = 'UPDATE' and old.status = 'failed';
    begin
      if new.sent_at is not null and not was_sent then perform waymark_record_outbound('email.sent', data); end if;
      if new.delivered_at is not null and not was_delivered then perform waymark_record_outbound('email.delivered', data); end if;
      if new.opened_at is not null and not was_opened then perform waymark_record_outbound('email.opened', data); end if;
      if new.clicked_at is not null and not was_clicked then perform waymark_record_outbound('email.clicked', data); end if;
      if new.bounced_at is not null and not was_bounced then perform waymark_record_outbound('email.bounced', data); end if;
      if new.complained_at is not null and not was_complained then perform waymark_record_outbound('email.complained', data); end if;
      if new.status = 'failed' and not was_failed then
        perform waymark_record_outbound('email.failed', data || jsonb_build_object('error', new.error_message));
      end if;
      return null;
    end;
    $$;
    drop trigger email_sends_outbound_update on email_sends;
    create trigger email_sends_outbound_update after update on email_sends for each row
      when (
        (old.sent_at is null and new.sent_at is not null) or (old.delivered_at is null and new.delivered_at is not null)
        or (old.opened_at is null and new.opened_at is not null) or (old.clicked_at is null and new.clicked_at is not null)
        or (old.bounced_at is null and new.bounced_at is not null) or (old.complained_at is null and new.complained_at is not null)
        or (old.status is distinct from new.status and new.status = 'failed')
      )
      execute function email_sends_outbound();
    drop table if exists email_opens;
    alter table link_clicks drop constraint if exists link_clicks_machine_reason, drop column if exists machine_reason, drop column if exists machine;
    alter table tracked_links drop column if exists honeypot;
    alter table email_sends drop column if exists human_clicked_at, drop column if exists human_opened_at;
  `.execute(db);
}
