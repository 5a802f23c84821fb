/** Kysely table types: outbound events and their webhook deliveries (db/schema.ts gathers them into Database). */
import type { ColumnType, Generated } from 'kysely';
import type { Json, JsonObject, NullableTimestamp, Timestamp } from './columns';

export interface OutboundEventsTable {
  id: Generated<string>;
  event: string;
  payload: Json<JsonObject>;
  /** when the delivery workflow fanned the event out to its endpoints */
  dispatchedAt: NullableTimestamp;
  /** set only for an event meant for one endpoint (webhook.test) */
  endpointId: ColumnType<string | null, string | null | undefined, string | null>;
  /** the `traceparent` of the work that wrote it, with tracing on (the column's default reads it: migrations/0265) */
  traceContext: ColumnType<string | null, never, never>;
  createdAt: Timestamp;
}

export interface WebhookEndpointsTable {
  id: Generated<string>;
  url: string;
  description: string | null;
  events: string[];
  enabled: Generated<boolean>;
  secret: string;
  disabledReason: ColumnType<string | null, string | null | undefined, string | null>;
  disabledAt: NullableTimestamp;
  failingSince: NullableTimestamp;
  /** while failing: no attempt before this (docs/webhooks.md, "Isolation") */
  backoffUntil: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export type WebhookDeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'failed' | 'skipped';

export interface WebhookDeliveriesTable {
  id: Generated<string>;
  endpointId: string;
  outboundEventId: string;
  eventType: string;
  status: ColumnType<WebhookDeliveryStatus, WebhookDeliveryStatus | undefined, WebhookDeliveryStatus>;
  attempts: Generated<number>;
  lastStatusCode: ColumnType<number | null, number | null | undefined, number | null>;
  lastDurationMs: ColumnType<number | null, number | null | undefined, number | null>;
  lastError: ColumnType<string | null, string | null | undefined, string | null>;
  lastResponseBody: ColumnType<string | null, string | null | undefined, string | null>;
  nextAttemptAt: NullableTimestamp;
  /** the first attempt of the current retry schedule (the clock the retry window runs on) */
  firstAttemptAt: NullableTimestamp;
  /** the lease of the delivery slot working on it (null: nobody) */
  lockedUntil: NullableTimestamp;
  deliveredAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}
