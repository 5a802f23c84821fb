import { sql, type Kysely } from 'kysely';

/**
 * The whole initial data model. Plain SQL so the schema reads like the database it makes.
 * Every filter and sort the admin plane names has an index here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);

  await sql`
    create table contacts (
      id uuid primary key default gen_random_uuid(),
      external_id text unique,
      email text,
      properties jsonb not null default '{}'::jsonb,
      first_seen_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now(),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint contacts_key_present check (external_id is not null or email is not null)
    );
    -- an email-only contact is unique by address; contacts with an external id may share one
    create unique index contacts_email_only_key on contacts (lower(email)) where external_id is null;
    create index contacts_email_idx on contacts (lower(email));
    create index contacts_last_seen_idx on contacts (last_seen_at desc, id);
    create index contacts_email_trgm_idx on contacts using gin (lower(email) gin_trgm_ops);
    create index contacts_external_id_trgm_idx on contacts using gin (lower(external_id) gin_trgm_ops);

    create table email_preferences (
      id uuid primary key default gen_random_uuid(),
      user_id text,
      email text not null,
      unsubscribed_all boolean not null default false,
      suppressed boolean not null default false,
      suppression_reason text,
      bounce_count integer not null default 0,
      categories jsonb not null default '{}'::jsonb,
      suppressed_at timestamptz,
      last_bounce_at timestamptz,
      complained_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    -- a row may exist before its contact (suppression import), so it is keyed by address + user id
    create unique index email_preferences_key on email_preferences (lower(email), user_id) nulls not distinct;
    create index email_preferences_user_idx on email_preferences (user_id);

    create table events (
      id uuid primary key default gen_random_uuid(),
      user_id text not null,
      user_email text,
      event text not null,
      properties jsonb not null default '{}'::jsonb,
      source text not null default 'api',
      idempotency_key text unique,
      occurred_at timestamptz not null default now(),
      created_at timestamptz not null default now()
    );
    create index events_user_occurred_idx on events (user_id, occurred_at desc);
    create index events_name_occurred_idx on events (event, occurred_at desc);
    create index events_occurred_idx on events (occurred_at desc);

    create table journey_overrides (
      journey_id text primary key,
      enabled boolean not null,
      updated_by text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );

    create table journey_states (
      id uuid primary key default gen_random_uuid(),
      journey_id text not null,
      user_id text not null,
      user_email text not null,
      current_node_id text not null default 'start',
      status text not null default 'active'
        check (status in ('active', 'waiting', 'completed', 'failed', 'exited')),
      workflow_id text not null unique,
      workflow_run_id text,
      context jsonb not null default '{}'::jsonb,
      error_message text,
      entry_count integer not null default 1,
      completed_at timestamptz,
      exited_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    -- "already enrolled" guard: at most one live run per user and journey, enforced by the database
    create unique index journey_states_one_live on journey_states (journey_id, user_id)
      where status in ('active', 'waiting');
    create index journey_states_journey_status_idx on journey_states (journey_id, status);
    create index journey_states_user_status_idx on journey_states (user_id, status);
    create index journey_states_journey_created_idx on journey_states (journey_id, created_at desc);

    -- entry-limit ledger: one row per (journey, user) ever entered; survives Temporal retention
    create table journey_entries (
      journey_id text not null,
      user_id text not null,
      entry_count integer not null default 1,
      first_entered_at timestamptz not null default now(),
      last_entered_at timestamptz not null default now(),
      primary key (journey_id, user_id)
    );

    create table journey_logs (
      id uuid primary key default gen_random_uuid(),
      journey_state_id uuid not null references journey_states (id) on delete cascade,
      from_node_id text,
      to_node_id text not null,
      action text not null,
      detail jsonb,
      created_at timestamptz not null default now()
    );
    create index journey_logs_state_idx on journey_logs (journey_state_id, created_at);

    create table email_sends (
      id uuid primary key default gen_random_uuid(),
      journey_state_id uuid references journey_states (id) on delete set null,
      user_id text,
      template_key text not null,
      provider_message_id text,
      from_email text not null,
      to_email text not null,
      subject text not null default '',
      category text not null default 'journey',
      status text not null default 'queued'
        check (status in ('queued', 'rendered', 'sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained', 'failed')),
      idempotency_key text unique,
      data jsonb not null default '{}'::jsonb,
      error_message text,
      sent_at timestamptz,
      delivered_at timestamptz,
      opened_at timestamptz,
      clicked_at timestamptz,
      bounced_at timestamptz,
      complained_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index email_sends_created_idx on email_sends (created_at desc);
    create index email_sends_to_idx on email_sends (lower(to_email), created_at desc);
    create index email_sends_template_idx on email_sends (template_key, created_at desc);
    create index email_sends_status_idx on email_sends (status, created_at desc);
    create index email_sends_state_idx on email_sends (journey_state_id);
    create index email_sends_user_idx on email_sends (user_id, created_at desc);
    create unique index email_sends_provider_message_idx on email_sends (provider_message_id);

    create table tracked_links (
      id uuid primary key default gen_random_uuid(),
      email_send_id uuid not null references email_sends (id) on delete cascade,
      original_url text not null,
      click_count integer not null default 0,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (email_send_id, original_url)
    );
    create index tracked_links_send_idx on tracked_links (email_send_id);

    create table link_clicks (
      id uuid primary key default gen_random_uuid(),
      tracked_link_id uuid not null references tracked_links (id) on delete cascade,
      ip_address text,
      user_agent text,
      clicked_at timestamptz not null default now()
    );
    create index link_clicks_link_idx on link_clicks (tracked_link_id);
    create index link_clicks_clicked_idx on link_clicks (clicked_at);

    create table api_keys (
      id uuid primary key default gen_random_uuid(),
      name text not null,
      key_prefix text not null,
      key_hash text not null unique,
      scopes text[] not null,
      expires_at timestamptz,
      revoked_at timestamptz,
      last_used_at timestamptz,
      created_at timestamptz not null default now()
    );
    create index api_keys_created_idx on api_keys (created_at desc);

    create table audit_logs (
      id uuid primary key default gen_random_uuid(),
      actor text not null,
      actor_key_id uuid,
      action text not null,
      resource text not null,
      resource_id text,
      detail jsonb,
      ip_address text not null,
      created_at timestamptz not null default now()
    );
    create index audit_logs_created_idx on audit_logs (created_at desc);
    create index audit_logs_actor_idx on audit_logs (actor, created_at desc);
    create index audit_logs_resource_idx on audit_logs (resource, created_at desc);
    create index audit_logs_action_idx on audit_logs (action, created_at desc);

    create table alert_rules (
      id uuid primary key default gen_random_uuid(),
      name text not null,
      type text not null
        check (type in ('bounce_rate_exceeded', 'journey_failure_spike', 'delivery_issue', 'high_complaint_rate')),
      threshold double precision not null,
      channel text not null check (channel in ('webhook', 'chat', 'email')),
      channel_config jsonb not null,
      cooldown_minutes integer not null default 60,
      enabled boolean not null default true,
      last_triggered_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );

    create table alert_history (
      id uuid primary key default gen_random_uuid(),
      rule_id uuid not null references alert_rules (id) on delete cascade,
      rule_name text not null,
      type text not null,
      current_value double precision not null,
      threshold double precision not null,
      channel text not null,
      delivered boolean not null,
      error text,
      triggered_at timestamptz not null default now()
    );
    create index alert_history_rule_idx on alert_history (rule_id, triggered_at desc);
    create index alert_history_triggered_idx on alert_history (triggered_at desc);

    create table dlq_entries (
      id uuid primary key default gen_random_uuid(),
      source text not null,
      source_id text,
      payload jsonb not null,
      error text not null,
      retry_count integer not null default 0,
      status text not null default 'pending' check (status in ('pending', 'retried', 'discarded')),
      retried_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index dlq_entries_status_idx on dlq_entries (status, created_at desc);
    create index dlq_entries_source_idx on dlq_entries (source, status, created_at desc);

    create table import_jobs (
      id uuid primary key default gen_random_uuid(),
      status text not null default 'pending' check (status in ('pending', 'processing', 'completed', 'failed')),
      format text not null check (format in ('csv', 'json')),
      file_name text,
      data text not null,
      total_rows integer not null default 0,
      processed_rows integer not null default 0,
      failed_rows integer not null default 0,
      errors jsonb not null default '[]'::jsonb,
      created_by text,
      started_at timestamptz,
      completed_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );

    create table lists (
      id uuid primary key default gen_random_uuid(),
      key text not null unique,
      name text not null,
      description text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );

    create table list_memberships (
      list_id uuid not null references lists (id) on delete cascade,
      contact_id uuid not null references contacts (id) on delete cascade,
      subscribed boolean not null,
      updated_at timestamptz not null default now(),
      primary key (list_id, contact_id)
    );
    create index list_memberships_contact_idx on list_memberships (contact_id);

    create table outbound_events (
      id uuid primary key default gen_random_uuid(),
      event text not null,
      payload jsonb not null,
      delivered_at timestamptz,
      created_at timestamptz not null default now()
    );
    create index outbound_events_pending_idx on outbound_events (created_at) where delivered_at is null;

    -- web admin (session auth); used by the studio
    create table users (
      id text primary key,
      email text not null,
      password_hash text not null,
      role text not null default 'admin',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create unique index users_email_key on users (lower(email));

    create table sessions (
      id text primary key,
      user_id text not null references users (id) on delete cascade,
      expires_at timestamptz not null
    );
    create index sessions_user_idx on sessions (user_id);

    create table organizations (
      id uuid primary key default gen_random_uuid(),
      name text not null,
      created_at timestamptz not null default now()
    );

    create table organization_members (
      organization_id uuid not null references organizations (id) on delete cascade,
      user_id text not null references users (id) on delete cascade,
      role text not null default 'member',
      created_at timestamptz not null default now(),
      primary key (organization_id, user_id)
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table if exists organization_members, organizations, sessions, users, outbound_events,
      list_memberships, lists, import_jobs, dlq_entries, alert_history, alert_rules, audit_logs,
      api_keys, link_clicks, tracked_links, email_sends, journey_logs, journey_entries,
      journey_states, journey_overrides, events, email_preferences, contacts cascade
  `.execute(db);
}
