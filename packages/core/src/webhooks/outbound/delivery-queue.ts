import { sql } from 'kysely';
import type { Db } from '../../db/database';

/** Notified (on commit) when deliveries become due at once: new ones, a DLQ retry, a re-enabled endpoint. */
export const DELIVERY_QUEUE_CHANNEL = 'waymark_webhook_deliveries';

export interface ClaimOptions {
  /** free delivery slots of the caller: at most this many are claimed */
  limit: number;
  /** attempts in flight at once to one healthy endpoint, across every worker (a failing one gets one) */
  endpointConcurrency: number;
  /** how long a claim holds the delivery; a worker that dies mid-attempt lets it lapse */
  leaseMs: number;
}

/**
 * Claims due deliveries for the caller's free slots, leased for `leaseMs`. Per endpoint, at most
 * its concurrency is in flight (counting every worker's leases); a failing endpoint is held to
 * one attempt at a time and none before its `backoff_until`, and a disabled endpoint gets none
 * but its test events, so their backlog waits here, holding no slot. Endpoint rows are locked
 * (`for no key update skip locked`, which does not block the inserts of new deliveries) so two
 * workers never count the same endpoint's free slots at once. Oldest due first across endpoints.
 */
export async function claimDueDeliveries(db: Db, options: ClaimOptions): Promise<string[]> {
  if (options.limit <= 0) return [];
  const result = await sql<{ id: string }>`
    with endpoints as (
      select e.id, e.enabled,
        (case when e.failing_since is null then ${options.endpointConcurrency}::int else 1 end)
          - (select count(*) from webhook_deliveries l where l.endpoint_id = e.id and l.locked_until > now())::int as free
      from webhook_endpoints e
      where (e.backoff_until is null or e.backoff_until <= now())
        and (
          (e.enabled and exists (
            select 1 from webhook_deliveries d
            where d.endpoint_id = e.id and d.status in ('pending', 'retrying') and d.next_attempt_at <= now()))
          or exists (
            select 1 from webhook_deliveries d
            where d.endpoint_id = e.id and d.status in ('pending', 'retrying') and d.event_type = 'webhook.test' and d.next_attempt_at <= now())
        )
      for no key update of e skip locked
    ),
    picked as (
      select due.id from endpoints c
      cross join lateral (
        select d.id, d.next_attempt_at from webhook_deliveries d
        where d.endpoint_id = c.id and d.status in ('pending', 'retrying') and d.next_attempt_at <= now()
          and (d.locked_until is null or d.locked_until <= now())
          and (c.enabled or d.event_type = 'webhook.test')
        order by d.next_attempt_at
        limit greatest(c.free, 0)
        for update of d skip locked
      ) due
      order by due.next_attempt_at
      limit ${options.limit}
    )
    update webhook_deliveries w set locked_until = now() + ${options.leaseMs} * interval '1 millisecond'
    from picked where w.id = picked.id
    returning w.id
  `.execute(db);
  return result.rows.map((row) => row.id);
}
