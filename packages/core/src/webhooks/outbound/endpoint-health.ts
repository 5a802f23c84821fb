import { sql } from 'kysely';
import { recordAudit } from '../../audit/audit-log';
import type { Db } from '../../db/database';

export interface EndpointHealthDeps {
  db: Db;
  /** WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS: how long every attempt may fail before the endpoint is disabled */
  disableAfterMs: number;
  /** a failing endpoint waits from the first retry interval, about doubling, up to the longest one */
  retry: { initialIntervalMs: number; maximumIntervalMs: number };
}

/** A 2xx: the endpoint is healthy again, its whole backlog is due at its usual concurrency. */
export async function recordEndpointSuccess(db: Db, endpointId: string): Promise<void> {
  await db
    .updateTable('webhookEndpoints')
    .set({ failingSince: null, backoffUntil: null })
    .where('id', '=', endpointId)
    .where((eb) => eb.or([eb('failingSince', 'is not', null), eb('backoffUntil', 'is not', null)]))
    .execute();
}

function hours(ms: number): string {
  const value = ms / 3_600_000;
  return Number.isInteger(value) ? String(value) : value.toFixed(3).replace(/0+$/, '');
}

/**
 * Starts the endpoint's failure clock at its first failure since the last success and holds the
 * endpoint back: no attempt before `backoff_until` (the time it has been failing plus the first
 * retry interval, capped at the longest), one at a time, so its backlog waits in PostgreSQL
 * rather than in delivery slots. Once the clock has run for the whole disable window the endpoint
 * is disabled, with an audit row by Waymark itself; the `webhook_endpoint_disabled` alert type
 * counts it. Returns true when this call disabled it.
 */
export async function recordEndpointFailure(deps: EndpointHealthDeps, endpointId: string, now: Date): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('webhookEndpoints')
      .set({
        failingSince: sql<Date>`coalesce(failing_since, ${now})`,
        backoffUntil: sql<Date>`${now}::timestamptz + least(
          ${now}::timestamptz - coalesce(failing_since, ${now}) + ${deps.retry.initialIntervalMs} * interval '1 millisecond',
          ${deps.retry.maximumIntervalMs} * interval '1 millisecond')`,
      })
      .where('id', '=', endpointId)
      .returning(['failingSince', 'enabled'])
      .executeTakeFirst();
    if (row === undefined || !row.enabled || row.failingSince === null) return false;
    if (now.getTime() - row.failingSince.getTime() < deps.disableAfterMs) return false;
    const reason = `every delivery attempt failed for ${hours(deps.disableAfterMs)} h`;
    await trx
      .updateTable('webhookEndpoints')
      .set({ enabled: false, disabledAt: now, disabledReason: reason, updatedAt: now })
      .where('id', '=', endpointId)
      .execute();
    await recordAudit(trx, {
      actor: 'waymark',
      actorKeyId: null,
      actorType: 'system',
      action: 'update',
      resource: 'webhook-endpoint',
      resourceId: endpointId,
      detail: { enabled: false, disabledReason: reason, failingSince: row.failingSince.toISOString() },
      ipAddress: '',
    });
    return true;
  });
}
