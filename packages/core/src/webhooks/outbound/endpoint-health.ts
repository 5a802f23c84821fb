import { sql } from 'kysely';
import type { Db } from '../../db/database';

export interface EndpointHealthDeps {
  db: Db;
  /** WEBHOOK_RETRY_WINDOW_MS: how long an endpoint may fail before it is disabled */
  retryWindowMs: number;
}

export async function recordEndpointSuccess(db: Db, endpointId: string): Promise<void> {
  await db.updateTable('webhookEndpoints').set({ failingSince: null }).where('id', '=', endpointId).where('failingSince', 'is not', null).execute();
}

function disabledFields(now: Date, windowMs: number) {
  return { enabled: false, disabledAt: now, disabledReason: `every delivery failed for ${Math.round(windowMs / 3_600_000)} h`, updatedAt: now };
}

/**
 * Starts the endpoint's failure clock at its first failure since the last success; once the
 * clock has run for the whole retry window the endpoint is disabled (new events are no longer
 * fanned out to it, open deliveries stop at their next attempt) and the
 * `webhook_endpoint_disabled` alert type sees it. Returns true when this call disabled it.
 */
export async function recordEndpointFailure(deps: EndpointHealthDeps, endpointId: string, now: Date): Promise<boolean> {
  await deps.db
    .updateTable('webhookEndpoints')
    .set({ failingSince: sql<Date>`coalesce(failing_since, ${now})` })
    .where('id', '=', endpointId)
    .execute();
  const cutoff = new Date(now.getTime() - deps.retryWindowMs);
  const disabled = await deps.db
    .updateTable('webhookEndpoints')
    .set(disabledFields(now, deps.retryWindowMs))
    .where('id', '=', endpointId)
    .where('enabled', '=', true)
    .where('failingSince', '<=', cutoff)
    .executeTakeFirst();
  return Number(disabled.numUpdatedRows) > 0;
}

/**
 * A delivery gave up after its whole retry schedule: if the endpoint's failure clock started no
 * later than that delivery's first attempt, nothing reached it for the whole window.
 */
export async function disableEndpointFailingSince(deps: EndpointHealthDeps, endpointId: string, firstAttemptAt: Date): Promise<void> {
  await deps.db
    .updateTable('webhookEndpoints')
    .set(disabledFields(new Date(), deps.retryWindowMs))
    .where('id', '=', endpointId)
    .where('enabled', '=', true)
    .where('failingSince', '<=', firstAttemptAt)
    .execute();
}
