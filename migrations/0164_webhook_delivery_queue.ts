import { sql, type Kysely } from 'kysely';

/**
 * Outbound deliveries become a queue in PostgreSQL, worked by a pool of slots in each worker
 * process instead of one Temporal workflow per event (docs/webhooks.md, "Isolation"):
 *
 * - webhook_deliveries.locked_until: the lease of the slot working on the delivery; a worker that
 *   dies mid-attempt lets it lapse and another worker takes the delivery again. Open rows are
 *   due at `next_attempt_at` (set when they are created from now on).
 * - webhook_endpoints.backoff_until: while an endpoint fails, it gets one attempt at a time and
 *   none before this, so a dead endpoint's backlog waits in this table without holding a slot.
 * - audit_logs.actor_type 'system': the worker disabling an endpoint is audited as Waymark itself.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table webhook_deliveries add column locked_until timestamptz;
    alter table webhook_endpoints add column backoff_until timestamptz;
    update webhook_deliveries set next_attempt_at = coalesce(next_attempt_at, created_at) where status in ('pending', 'retrying');
    create index webhook_deliveries_due_idx on webhook_deliveries (endpoint_id, next_attempt_at) where status in ('pending', 'retrying');
    create index webhook_deliveries_due_test_idx on webhook_deliveries (endpoint_id, next_attempt_at)
      where status in ('pending', 'retrying') and event_type = 'webhook.test';
    create index webhook_deliveries_leased_idx on webhook_deliveries (endpoint_id, locked_until) where locked_until is not null;

    alter table audit_logs drop constraint if exists audit_logs_actor_type_check;
    alter table audit_logs add constraint audit_logs_actor_type_check check (actor_type in ('key', 'legacy', 'user', 'system'));
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    delete from audit_logs where actor_type = 'system';
    alter table audit_logs drop constraint if exists audit_logs_actor_type_check;
    alter table audit_logs add constraint audit_logs_actor_type_check check (actor_type in ('key', 'legacy', 'user'));
    drop index if exists webhook_deliveries_leased_idx;
    drop index if exists webhook_deliveries_due_test_idx;
    drop index if exists webhook_deliveries_due_idx;
    alter table webhook_endpoints drop column if exists backoff_until;
    alter table webhook_deliveries drop column if exists locked_until;
  `.execute(db);
}
