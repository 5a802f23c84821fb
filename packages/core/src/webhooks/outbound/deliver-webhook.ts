import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { postJsonBody, type OutboundOptions, type OutboundResponse } from '../../alerts/outbound-http';
import type { Db } from '../../db/database';
import type { JsonObject } from '../../db/schema';
import { recordEndpointFailure, recordEndpointSuccess, type EndpointHealthDeps } from './endpoint-health';

export interface WebhookDeliveryDeps extends EndpointHealthDeps {
  db: Db;
  outbound: OutboundOptions;
}

/** The body every receiver gets; `timestamp` is when the fact happened, the same on every attempt. */
export interface WebhookPayload {
  type: string;
  timestamp: string;
  data: JsonObject;
}

export type DeliveryAttemptOutcome =
  /** 2xx: done */
  | { outcome: 'delivered'; status: number }
  /** the delivery or its endpoint is gone, or the endpoint is disabled: nothing to retry */
  | { outcome: 'skipped'; reason: string }
  /** no 2xx; `endpointDisabled` when this failure disabled the endpoint (stop retrying) */
  | { outcome: 'failed'; error: string; endpointDisabled: boolean };

export interface DeliveryAttempt {
  deliveryId: string;
  /**
   * when the orchestrator scheduled this attempt: the endpoint's failure clock runs on it, so
   * "failing for the whole retry window" is measured on the same clock as the retry window
   */
  scheduledAt: Date;
  /** when the next attempt is due if this one fails (null: this is the last one) */
  nextAttemptAt: Date | null;
}

function describeFailure(response: OutboundResponse): string {
  return `HTTP ${response.status}${response.body === '' ? '' : `: ${response.body.slice(0, 200)}`}`;
}

/**
 * One attempt of one delivery: sign the event with the endpoint's current secret (standard
 * webhooks: `webhook-id` is the outbox id, so it stays the same across retries and receivers
 * can dedupe; `webhook-timestamp` is the attempt's time, so the receiver's 5-minute tolerance
 * holds on a late retry), POST it, and record the answer on the delivery row.
 */
export async function attemptWebhookDelivery(deps: WebhookDeliveryDeps, attempt: DeliveryAttempt): Promise<DeliveryAttemptOutcome> {
  const row = await deps.db
    .selectFrom('webhookDeliveries as d')
    .innerJoin('webhookEndpoints as e', 'e.id', 'd.endpointId')
    .innerJoin('outboundEvents as o', 'o.id', 'd.outboundEventId')
    .select([
      'd.id',
      'd.status',
      'e.id as endpointId',
      'e.url',
      'e.secret',
      'e.enabled',
      'o.id as eventId',
      'o.event',
      'o.payload',
      'o.createdAt',
      'o.endpointId as target',
    ])
    .where('d.id', '=', attempt.deliveryId)
    .executeTakeFirst();
  if (row === undefined) return { outcome: 'skipped', reason: 'the delivery or its endpoint was deleted' };
  if (row.status === 'succeeded') return { outcome: 'delivered', status: 200 };
  // a test event goes to the endpoint it names even while it is disabled (to check it before re-enabling)
  if (!row.enabled && row.target === null) {
    await deps.db
      .updateTable('webhookDeliveries')
      .set({ status: 'skipped', nextAttemptAt: null, lastError: 'endpoint disabled', updatedAt: new Date() })
      .where('id', '=', row.id)
      .execute();
    return { outcome: 'skipped', reason: 'endpoint disabled' };
  }

  const payload: WebhookPayload = { type: row.event, timestamp: row.createdAt.toISOString(), data: row.payload };
  const body = JSON.stringify(payload);
  const sentAt = new Date();
  const signature = new Webhook(row.secret).sign(row.eventId, sentAt, body);
  const headers = {
    'webhook-id': row.eventId,
    'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
    'webhook-signature': signature,
    'user-agent': 'waymark-webhooks',
  };
  let response: OutboundResponse | undefined;
  let error: string | undefined;
  try {
    response = await postJsonBody(row.url, body, headers, deps.outbound);
    if (response.status < 200 || response.status >= 300) error = describeFailure(response);
  } catch (cause) {
    error = (cause as Error).message;
  }
  const now = new Date();
  await deps.db
    .updateTable('webhookDeliveries')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      firstAttemptAt: sql<Date>`coalesce(first_attempt_at, ${attempt.scheduledAt})`,
      status: error === undefined ? 'succeeded' : 'retrying',
      lastStatusCode: response?.status ?? null,
      lastDurationMs: response?.durationMs ?? Math.round(now.getTime() - sentAt.getTime()),
      lastResponseBody: response?.body ?? null,
      lastError: error ?? null,
      nextAttemptAt: error === undefined ? null : attempt.nextAttemptAt,
      deliveredAt: error === undefined ? now : null,
      updatedAt: now,
    }))
    .where('id', '=', row.id)
    .execute();
  if (error === undefined) {
    await recordEndpointSuccess(deps.db, row.endpointId);
    return { outcome: 'delivered', status: response?.status ?? 200 };
  }
  const endpointDisabled = row.target === null && (await recordEndpointFailure(deps, row.endpointId, attempt.scheduledAt));
  return { outcome: 'failed', error, endpointDisabled };
}
