import { Webhook } from 'standardwebhooks';
import { postJsonBody, type OutboundOptions, type OutboundResponse } from '../../alerts/outbound-http';
import type { Config } from '../../config/config';
import type { Db } from '../../db/database';
import type { JsonObject } from '../../db/schema';
import { openSecret, type SecretKeys } from '../../tokens/sealed-secret';
import { annotateActiveSpan, inSpanContinuing, SpanAttribute } from '../../logging/trace-context';
import { recordEndpointFailure, recordEndpointSuccess, type EndpointHealthDeps } from './endpoint-health';
import { parkWebhookDelivery } from './webhook-deliveries';
import { openEndpointUrl } from './endpoint-secret';

export interface WebhookDeliveryDeps extends EndpointHealthDeps {
  db: Db;
  outbound: OutboundOptions;
  /** ENCRYPTION_KEYS: the endpoints' signing secrets are kept sealed under them */
  keys: SecretKeys;
  /** the retry schedule: from the first interval, about doubling, capped, until the window closes */
  retry: EndpointHealthDeps['retry'] & { windowMs: number };
}

/** The outbound HTTP deadline: a receiver has 5 s to answer. */
const ANSWER_TIMEOUT_MS = 5_000;

/** How this installation delivers, from its settings (docs/webhooks.md). */
export function webhookDeliveryDeps(db: Db, config: Config['webhooks'], keys: SecretKeys): WebhookDeliveryDeps {
  return {
    db,
    keys,
    outbound: { timeoutMs: ANSWER_TIMEOUT_MS, connectTimeoutMs: config.connectTimeoutMs, allowPrivateTargets: config.allowPrivateTargets },
    retry: { initialIntervalMs: config.retryInitialIntervalMs, maximumIntervalMs: config.retryMaxIntervalMs, windowMs: config.retryWindowMs },
    disableAfterMs: config.disableAfterMs,
  };
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
  /** the delivery or its endpoint is gone, or the endpoint is disabled: nothing attempted */
  | { outcome: 'skipped'; reason: string }
  /**
   * no 2xx: `parked` when the retry window is over (failed, in the DLQ), `endpointDisabled` when
   * this failure disabled the endpoint
   */
  | { outcome: 'failed'; endpointId: string; error: string; parked: boolean; endpointDisabled: boolean };

/**
 * When a failed delivery is tried again: the time since its first attempt plus the first
 * interval, capped. With attempts at 0, i, 3i, 7i… that is Temporal's doubling schedule, and it
 * needs no attempt counter of its own, so a DLQ retry or a re-enabled endpoint starts a fresh
 * schedule by clearing `first_attempt_at`.
 */
export function nextAttemptAt(retry: WebhookDeliveryDeps['retry'], firstAttemptAt: Date, now: Date): Date {
  const delay = Math.min(now.getTime() - firstAttemptAt.getTime() + retry.initialIntervalMs, retry.maximumIntervalMs);
  return new Date(now.getTime() + delay);
}

function describeFailure(response: OutboundResponse): string {
  return `HTTP ${response.status}${response.body === '' ? '' : `: ${response.body.slice(0, 200)}`}`;
}

/**
 * One attempt of one delivery: sign the event with the endpoint's current secret (standard
 * webhooks: `webhook-id` is the outbox id, so it stays the same across retries and receivers
 * can dedupe; `webhook-timestamp` is the attempt's time, so the receiver's 5-minute tolerance
 * holds on a late retry), POST it, and record the answer on the delivery row.
 *
 * The attempt is a `webhook deliver` span continuing the trace of the work that wrote the event
 * (docs/operations.md, "Tracing"); `report` runs inside it, so what its caller logs of the outcome
 * carries that trace too. Ids only: never the endpoint's URL (it may hold a secret) or the payload.
 */
export async function attemptWebhookDelivery(
  deps: WebhookDeliveryDeps,
  deliveryId: string,
  report?: (outcome: DeliveryAttemptOutcome) => void,
): Promise<DeliveryAttemptOutcome> {
  const row = await loadDelivery(deps.db, deliveryId);
  if (row === undefined) return { outcome: 'skipped', reason: 'the delivery or its endpoint was deleted' };
  if (row.status === 'succeeded') return { outcome: 'delivered', status: 200 };
  // disabled after this delivery was claimed: it waits, open, for the endpoint to be enabled again
  // (a test event goes to the endpoint it names even while it is disabled, to check it before re-enabling)
  if (!row.enabled && row.target === null) {
    await deps.db.updateTable('webhookDeliveries').set({ lockedUntil: null }).where('id', '=', row.id).execute();
    return { outcome: 'skipped', reason: 'endpoint disabled' };
  }
  const attributes = {
    [SpanAttribute.webhookEndpointId]: row.endpointId,
    [SpanAttribute.webhookDeliveryId]: row.id,
    [SpanAttribute.webhookEventType]: row.event,
    [SpanAttribute.webhookEventId]: row.eventId,
  };
  return inSpanContinuing(row.traceContext, 'webhook deliver', attributes, async () => {
    const outcome = await deliver(deps, row);
    annotateActiveSpan({ [SpanAttribute.webhookOutcome]: outcome.outcome });
    report?.(outcome);
    return outcome;
  });
}

/** The delivery with its endpoint and event, or undefined when either is gone. */
function loadDelivery(db: Db, deliveryId: string) {
  return db
    .selectFrom('webhookDeliveries as d')
    .innerJoin('webhookEndpoints as e', 'e.id', 'd.endpointId')
    .innerJoin('outboundEvents as o', 'o.id', 'd.outboundEventId')
    .select([
      'd.id',
      'd.status',
      'd.firstAttemptAt',
      'e.id as endpointId',
      'e.url',
      'e.secret',
      'e.enabled',
      'e.failingSince',
      'e.backoffUntil',
      'o.id as eventId',
      'o.event',
      'o.payload',
      'o.createdAt',
      'o.endpointId as target',
      'o.traceContext',
    ])
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
}

type DueDelivery = NonNullable<Awaited<ReturnType<typeof loadDelivery>>>;

/**
 * The endpoint's secret and URL, opened. One sealed under a key ENCRYPTION_KEYS no longer holds
 * throws before any attempt is counted: the delivery's lease lapses and it runs again once the key
 * is put back. Until then its `lastError` names the key, so the deliveries list says why it waits
 * (a person has to act, and the log alone is easy to miss).
 */
async function openEndpoint(deps: WebhookDeliveryDeps, row: DueDelivery): Promise<{ secret: string; url: string }> {
  try {
    return { secret: openSecret(deps.keys, row.secret, 'webhook endpoint secret'), url: openEndpointUrl(deps.keys, row.url) };
  } catch (error) {
    const message = `not attempted: ${(error as Error).message}`;
    await deps.db.updateTable('webhookDeliveries').set({ lastError: message, updatedAt: new Date() }).where('id', '=', row.id).execute();
    throw error;
  }
}

async function deliver(deps: WebhookDeliveryDeps, row: DueDelivery): Promise<DeliveryAttemptOutcome> {
  const payload: WebhookPayload = { type: row.event, timestamp: row.createdAt.toISOString(), data: row.payload };
  const body = JSON.stringify(payload);
  const sentAt = new Date();
  const endpoint = await openEndpoint(deps, row);
  const signature = new Webhook(endpoint.secret).sign(row.eventId, sentAt, body);
  const headers = {
    'webhook-id': row.eventId,
    'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
    'webhook-signature': signature,
    'user-agent': 'waymark-webhooks',
  };
  let response: OutboundResponse | undefined;
  let error: string | undefined;
  try {
    response = await postJsonBody(endpoint.url, body, headers, deps.outbound);
    if (response.status < 200 || response.status >= 300) error = describeFailure(response);
  } catch (cause) {
    error = (cause as Error).message;
  }
  const now = new Date();
  const firstAttemptAt = row.firstAttemptAt ?? sentAt;
  const next = error === undefined ? null : nextAttemptAt(deps.retry, firstAttemptAt, now);
  const windowOver = next !== null && next.getTime() > firstAttemptAt.getTime() + deps.retry.windowMs;
  await deps.db
    .updateTable('webhookDeliveries')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      firstAttemptAt,
      status: error === undefined ? 'succeeded' : 'retrying',
      lastStatusCode: response?.status ?? null,
      lastDurationMs: response?.durationMs ?? Math.round(now.getTime() - sentAt.getTime()),
      lastResponseBody: response?.body ?? null,
      lastError: error ?? null,
      nextAttemptAt: windowOver ? null : next,
      lockedUntil: null,
      deliveredAt: error === undefined ? now : null,
      updatedAt: now,
    }))
    .where('id', '=', row.id)
    .execute();
  if (error === undefined) {
    if (row.failingSince !== null || row.backoffUntil !== null) await recordEndpointSuccess(deps.db, row.endpointId);
    return { outcome: 'delivered', status: response?.status ?? 200 };
  }
  const parked = windowOver && (await parkWebhookDelivery(deps.db, { deliveryId: row.id, error: `${error} (gave up: the retry window closed)` })) !== undefined;
  const endpointDisabled = row.target === null && (await recordEndpointFailure(deps, row.endpointId, now));
  return { outcome: 'failed', endpointId: row.endpointId, error, parked, endpointDisabled };
}
