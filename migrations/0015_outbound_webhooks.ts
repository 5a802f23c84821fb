import { sql, type Kysely } from 'kysely';

/**
 * Outbound webhooks (docs/webhooks.md).
 *
 * - webhook_endpoints: where events go, which event types each one takes, its signing secret.
 * - outbound_events is the outbox: a row is written in the transaction of the fact it reports.
 *   `delivered_at` (never set before this migration) becomes `dispatched_at`: when the delivery
 *   workflow fanned the event out to its endpoints. `endpoint_id` targets one endpoint only
 *   (the `webhook.test` event).
 * - An insert notifies channel `waymark_outbound_events`; PostgreSQL delivers a NOTIFY only when
 *   the writing transaction commits, so a worker that listens starts the delivery right after
 *   the commit and never for a rolled-back fact. Rows whose notice was missed are swept.
 * - webhook_deliveries: one row per (event, endpoint), updated on every attempt.
 * - alert type webhook_endpoint_disabled: endpoints disabled after failing for the retry window.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table webhook_endpoints (
      id uuid primary key default gen_random_uuid(),
      url text not null,
      description text,
      events text[] not null,
      enabled boolean not null default true,
      secret text not null,
      disabled_reason text,
      disabled_at timestamptz,
      failing_since timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );

    alter table outbound_events rename column delivered_at to dispatched_at;
    alter table outbound_events add column endpoint_id uuid references webhook_endpoints (id) on delete cascade;
    drop index if exists outbound_events_pending_idx;
    create index outbound_events_undispatched_idx on outbound_events (created_at) where dispatched_at is null;

    create table webhook_deliveries (
      id uuid primary key default gen_random_uuid(),
      endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
      outbound_event_id uuid not null references outbound_events (id) on delete cascade,
      event_type text not null,
      status text not null default 'pending' check (status in ('pending', 'retrying', 'succeeded', 'failed', 'skipped')),
      attempts integer not null default 0,
      last_status_code integer,
      last_duration_ms integer,
      last_error text,
      last_response_body text,
      next_attempt_at timestamptz,
      first_attempt_at timestamptz,
      delivered_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (outbound_event_id, endpoint_id)
    );
    create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, created_at desc, id desc);

    create function notify_outbound_event() returns trigger language plpgsql as $$
    begin
      perform pg_notify('waymark_outbound_events', new.id::text);
      return null;
    end;
    $$;
    create trigger outbound_events_notify after insert on outbound_events
      for each row execute function notify_outbound_event();

    alter table alert_rules drop constraint if exists alert_rules_type_check;
    alter table alert_rules add constraint alert_rules_type_check
      check (type in ('bounce_rate_exceeded', 'journey_failure_spike', 'delivery_issue', 'high_complaint_rate', 'webhook_endpoint_disabled'));
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    delete from alert_rules where type = 'webhook_endpoint_disabled';
    alter table alert_rules drop constraint if exists alert_rules_type_check;
    alter table alert_rules add constraint alert_rules_type_check
      check (type in ('bounce_rate_exceeded', 'journey_failure_spike', 'delivery_issue', 'high_complaint_rate'));
    drop trigger if exists outbound_events_notify on outbound_events;
    drop function if exists notify_outbound_event();
    drop table if exists webhook_deliveries;
    drop index if exists outbound_events_undispatched_idx;
    alter table outbound_events drop column if exists endpoint_id;
    alter table outbound_events rename column dispatched_at to delivered_at;
    create index if not exists outbound_events_pending_idx on outbound_events (created_at) where delivered_at is null;
    drop table if exists webhook_endpoints;
  `.execute(db);
}
