import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * Broadcasts (docs/broadcasts.md): one email to an audience, sent by one durable workflow.
 *
 * - broadcasts: what to send and to whom, its status and, for an A/B test, the winner. Variants
 *   and the A/B settings are small and always read with the broadcast, so they are JSON columns.
 * - broadcast_recipients: the audience snapshot taken when sending starts, one row per contact.
 *   UNIQUE (broadcast_id, contact_id) is the "at most one email per broadcast and contact"
 *   guarantee: a retried activity, a second `send` or a restarted worker finds the row, never a
 *   second one; its email's idempotency key is built from the same pair.
 * - email_sends.broadcast_id: a broadcast's emails are ordinary sends (tracking, bounces, DLQ),
 *   tagged so stats and the outbound `email.*` events can name the broadcast.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table broadcasts (
      id uuid primary key default gen_random_uuid(),
      name text not null,
      template_key text not null,
      category text not null,
      audience jsonb not null,
      segment_id uuid references segments (id) on delete set null,
      data jsonb not null default '{}'::jsonb,
      subject text,
      scheduled_at timestamptz,
      local_time text,
      variants jsonb,
      ab_test jsonb,
      status text not null default 'draft'
        check (status in ('draft', 'scheduled', 'sending', 'testing', 'paused', 'sent', 'cancelled', 'failed')),
      -- the status a paused broadcast goes back to on resume
      paused_from text check (paused_from in ('scheduled', 'sending', 'testing')),
      audience_size integer,
      winner_variant_id text,
      -- an A/B test's wait for results ends here (set when its test recipients are all sent)
      test_ends_at timestamptz,
      error text,
      created_by text,
      send_requested_at timestamptz,
      started_at timestamptz,
      completed_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index broadcasts_created_idx on broadcasts (created_at desc, id);
    create index broadcasts_segment_idx on broadcasts (segment_id) where segment_id is not null;

    create table broadcast_recipients (
      broadcast_id uuid not null references broadcasts (id) on delete cascade,
      contact_id uuid not null references contacts (id) on delete cascade,
      position integer not null,
      user_id text,
      email text,
      variant_id text,
      -- 'test': the A/B test fraction; 'rest': waits for the winner; 'all': no test
      phase text not null default 'all' check (phase in ('all', 'test', 'rest')),
      send_at timestamptz,
      status text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'skipped', 'cancelled')),
      reason text,
      email_send_id uuid references email_sends (id) on delete set null,
      updated_at timestamptz not null default now(),
      constraint broadcast_recipients_once unique (broadcast_id, contact_id)
    );
    create index broadcast_recipients_due_idx on broadcast_recipients (broadcast_id, phase, send_at, position) where status = 'pending';
    create index broadcast_recipients_list_idx on broadcast_recipients (broadcast_id, position);

    alter table email_sends add column broadcast_id uuid references broadcasts (id) on delete set null;
    create index email_sends_broadcast_idx on email_sends (broadcast_id) where broadcast_id is not null;

    ${emailSendsOutbound(sql`, 'broadcastId', new.broadcast_id`)}
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ${emailSendsOutbound(sql``)}
    alter table email_sends drop column if exists broadcast_id;
    drop table if exists broadcast_recipients;
    drop table if exists broadcasts;
  `.execute(db);
}

/** The outbound trigger of 0075, with `extra` fields in each event's data (0110: the broadcast id). */
function emailSendsOutbound(extra: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    create or replace function email_sends_outbound() returns trigger language plpgsql as $$
    declare
      data jsonb := jsonb_build_object(
        'emailId', new.id, 'userId', new.user_id, 'to', new.to_email, 'templateKey', new.template_key, 'category', new.category,
        'journeyStateId', new.journey_state_id${extra}, 'providerMessageId', new.provider_message_id
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
  `;
}
