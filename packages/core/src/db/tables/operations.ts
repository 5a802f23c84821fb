/** Kysely table types: alerts, the dead-letter queue and the exact row counters (db/schema.ts gathers them into Database). */
import type { ColumnType, Generated } from 'kysely';
import type { Json, JsonObject, NullableTimestamp, Timestamp } from './columns';

export type AlertType = 'bounce_rate_exceeded' | 'journey_failure_spike' | 'delivery_issue' | 'high_complaint_rate' | 'webhook_endpoint_disabled';
export type AlertChannel = 'webhook' | 'chat' | 'email';

export interface AlertRulesTable {
  id: Generated<string>;
  name: string;
  type: AlertType;
  threshold: number;
  channel: AlertChannel;
  channelConfig: Json<JsonObject>;
  cooldownMinutes: Generated<number>;
  enabled: Generated<boolean>;
  lastTriggeredAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface AlertHistoryTable {
  id: Generated<string>;
  ruleId: string;
  ruleName: string;
  type: string;
  currentValue: number;
  threshold: number;
  channel: string;
  delivered: boolean;
  error: string | null;
  triggeredAt: Timestamp;
}

export type DlqStatus = 'pending' | 'retried' | 'discarded';

export interface DlqEntriesTable {
  id: Generated<string>;
  source: string;
  sourceId: string | null;
  payload: Json<JsonObject>;
  error: string;
  retryCount: Generated<number>;
  status: ColumnType<DlqStatus, DlqStatus | undefined, DlqStatus>;
  retriedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** Exact row counts kept by triggers (migration 0070): a table's count is the sum of its shards. */
export interface RowCountsTable {
  tableName: string;
  shard: number;
  n: number;
}

/** Exact row counts per value of a filter column (migration 0132): a value's count is the sum of its shards. */
export interface FilterCountsTable {
  tableName: string;
  columnName: string;
  value: string;
  shard: number;
  n: number;
}
