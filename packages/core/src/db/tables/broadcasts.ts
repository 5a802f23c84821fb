/** Kysely table types: segments, broadcasts, their recipients and counters (db/schema.ts gathers them into Database). */
import type { ColumnType, Generated } from 'kysely';
import type { Json, JsonObject, NullableTimestamp, Timestamp } from './columns';

/** 0105: saved audiences (docs/segments.md); `conditions` is the condition tree, checked on write */
export interface SegmentsTable {
  id: Generated<string>;
  name: string;
  description: string | null;
  conditions: Json<JsonObject>;
  createdBy: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export type BroadcastStatus = 'draft' | 'scheduled' | 'sending' | 'testing' | 'paused' | 'sent' | 'cancelled' | 'failed';

/** 0110: one email to an audience (docs/broadcasts.md); `variants` and `abTest` are checked on write */
export interface BroadcastsTable {
  id: Generated<string>;
  name: string;
  templateKey: string;
  category: string;
  audience: Json<JsonObject>;
  segmentId: string | null;
  data: Json<JsonObject>;
  subject: string | null;
  scheduledAt: NullableTimestamp;
  localTime: string | null;
  variants: Json<JsonObject[]> | null;
  abTest: Json<JsonObject> | null;
  status: ColumnType<BroadcastStatus, BroadcastStatus | undefined, BroadcastStatus>;
  pausedFrom: 'scheduled' | 'sending' | 'testing' | null;
  /** 0205: `reputation` when the reputation breaker paused it (its resume resumes it) */
  pausedReason: ColumnType<string | null, string | null | undefined, string | null>;
  /** 0245: the goal as given (`{event, within, where?}`), its window in ms, the share held out */
  goal: Json<JsonObject> | null;
  goalWithinMs: ColumnType<string | null, number | null | undefined, number | null>;
  holdoutPercent: ColumnType<number, number | undefined, number>;
  /** 0260: today's warm-up allowance was spent: the rest of the recipients send from this instant */
  warmupUntil: ColumnType<Date | null, Date | null | undefined, Date | null>;
  audienceSize: number | null;
  winnerVariantId: string | null;
  testEndsAt: NullableTimestamp;
  error: string | null;
  createdBy: string | null;
  sendRequestedAt: NullableTimestamp;
  startedAt: NullableTimestamp;
  completedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export type BroadcastRecipientStatus = 'pending' | 'sent' | 'failed' | 'skipped' | 'cancelled';
export type BroadcastPhase = 'all' | 'test' | 'rest';

/** 0110: the audience snapshot; UNIQUE (broadcastId, contactId) makes it one email per contact */
export interface BroadcastRecipientsTable {
  broadcastId: string;
  contactId: string;
  position: number;
  userId: string | null;
  email: string | null;
  variantId: string | null;
  phase: ColumnType<BroadcastPhase, BroadcastPhase | undefined, BroadcastPhase>;
  sendAt: NullableTimestamp;
  status: ColumnType<BroadcastRecipientStatus, BroadcastRecipientStatus | undefined, BroadcastRecipientStatus>;
  reason: string | null;
  emailSendId: string | null;
  updatedAt: Generated<Date>;
  /** 0245: a goal broadcast's recipient whose turn came (sent, skipped or held out); the conversion */
  exposedAt: NullableTimestamp;
  convertedAt: NullableTimestamp;
  conversionEventId: string | null;
}

/**
 * A broadcast's recipient outcomes and its sends' engagement per (broadcast, variant, bucket), kept
 * by triggers (migration 0135); a bucket's count is the sum of its shards.
 */
export interface BroadcastCountsTable {
  broadcastId: string;
  variantId: string | null;
  bucket: string;
  shard: number;
  n: number;
}

/**
 * A goal broadcast's recipients exposed and converted per UTC day (exposure day, conversion day)
 * and arm, kept by the goal's trigger (migration 0270); a day's count is the sum of its shards.
 */
export interface BroadcastGoalDaysTable {
  broadcastId: string;
  variantId: string | null;
  day: ColumnType<Date, string, string>;
  holdout: boolean;
  shard: number;
  exposed: number;
  converted: number;
}
