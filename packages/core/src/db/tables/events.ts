/** Kysely table types: stored events, their journey effects and event replays (db/schema.ts gathers them into Database). */
import type { ColumnType, Generated } from 'kysely';
import type { Json, JsonObject, NullableTimestamp, Timestamp } from './columns';
import type { ImportStatus } from './contacts';

export interface EventsTable {
  id: Generated<string>;
  userId: string;
  userEmail: string | null;
  event: string;
  properties: Json<JsonObject>;
  source: Generated<string>;
  idempotencyKey: string | null;
  occurredAt: Timestamp;
  createdAt: Timestamp;
  /** set when EVENT_CATALOG_MODE=quarantine kept an event that misses its catalog schema (migration 0080) */
  catalogViolations: Json<{ path: string; message: string }[]> | null;
}

/** A journey start kept while Temporal was unreachable, until the relay starts it (migrations/0085). */
/** One journey effect of a stored event, until it is carried out (migrations/0152_event_effects.ts). */
export type EventEffectKind = 'start' | 'signal' | 'exit';

export interface EventEffectsTable {
  eventId: string;
  seq: number;
  kind: EventEffectKind;
  userId: string;
  journeyId: string;
  /** the run a signal goes to or an exit cancels; null for a start (its id is built from the event) */
  workflowId: string | null;
  attempts: Generated<number>;
  lastError: string | null;
  nextAttemptAt: Timestamp;
  /** the `traceparent` of the request that stored the event, with tracing on (migrations/0210) */
  traceContext: Generated<string | null>;
  createdAt: Generated<Timestamp>;
}

/** A system email kept until its run is started (migrations/0240_system_email_outbox.ts). */
export interface SystemEmailOutboxTable {
  idempotencyKey: string;
  /** the send input sealed under AUTH_SECRET (emails/sealed-input.ts) */
  sealed: string;
  attempts: Generated<number>;
  lastError: string | null;
  nextAttemptAt: Timestamp;
  createdAt: Generated<Timestamp>;
}

export interface ReplayJobsTable {
  id: Generated<string>;
  status: ColumnType<ImportStatus, ImportStatus | undefined, ImportStatus>;
  /** the request's selection, dates as ISO strings (core/replays/replay-selection.ts) */
  selection: Json<JsonObject>;
  snapshotTaken: Generated<boolean>;
  matched: Generated<number>;
  processed: Generated<number>;
  failed: Generated<number>;
  errors: Json<{ eventId: string | null; error: string }[]>;
  createdBy: string | null;
  startedAt: NullableTimestamp;
  completedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface ReplayJobEventsTable {
  jobId: string;
  position: number;
  eventId: string;
}
