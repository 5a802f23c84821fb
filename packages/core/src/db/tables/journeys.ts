/** Kysely table types: journey runs, their logs, entries, counters, overrides and simulations (db/schema.ts gathers them into Database). */
import type { ColumnType, Generated } from 'kysely';
import type { Json, JsonObject, NullableTimestamp, Timestamp } from './columns';

export interface JourneyOverridesTable {
  journeyId: string;
  enabled: boolean;
  updatedBy: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export type JourneyStatus = 'active' | 'waiting' | 'completed' | 'failed' | 'exited';

export interface JourneyStatesTable {
  id: Generated<string>;
  journeyId: string;
  userId: string;
  userEmail: string;
  currentNodeId: Generated<string>;
  status: ColumnType<JourneyStatus, JourneyStatus | undefined, JourneyStatus>;
  workflowId: string;
  workflowRunId: string | null;
  context: Json<JsonObject>;
  errorMessage: string | null;
  entryCount: Generated<number>;
  completedAt: NullableTimestamp;
  exitedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** 0060: the event the run started from, generated from context.trigger.eventId */
  triggerEventId: ColumnType<string | null, never, never>;
  /** 0100: the journey's version when the run started (null for older runs) */
  journeyVersion: ColumnType<string | null, string | null | undefined, string | null>;
  /** 0190: the person's arm (null: the journey has neither a goal nor a holdout) and their conversion */
  holdout: ColumnType<boolean | null, boolean | null | undefined, boolean | null>;
  convertedAt: NullableTimestamp;
  /** numeric: read as a string by the driver */
  conversionValue: ColumnType<string | null, number | null | undefined, number | null>;
  conversionEventId: ColumnType<string | null, string | null | undefined, string | null>;
  /** 0280: the person's program-holdout arm for the journey's category (null: the policy holds none of it out) */
  programHoldout: ColumnType<boolean | null, boolean | null | undefined, boolean | null>;
}

/** 0190: per journey, version, arm, entry day (UTC) and backend shard */
export interface JourneyOutcomeCountsTable {
  journeyId: string;
  journeyVersion: string;
  holdout: boolean;
  day: ColumnType<Date, string, string>;
  shard: number;
  enrolled: ColumnType<string, number | undefined, number>;
  converted: ColumnType<string, number | undefined, number>;
  value: ColumnType<string, number | undefined, number>;
}

/** 0190: the same per node */
export interface JourneyStepCountsTable {
  journeyId: string;
  journeyVersion: string;
  holdout: boolean;
  day: ColumnType<Date, string, string>;
  nodeId: string;
  shard: number;
  reached: ColumnType<string, number | undefined, number>;
  sent: ColumnType<string, number | undefined, number>;
  humanOpened: ColumnType<string, number | undefined, number>;
  humanClicked: ColumnType<string, number | undefined, number>;
  converted: ColumnType<string, number | undefined, number>;
}

/** 0280: per journey, program-holdout arm, entry day (UTC) and backend shard: the outcome counters without a version */
export type ProgramHoldoutCountsTable = Omit<JourneyOutcomeCountsTable, 'journeyVersion'>;

export interface JourneyEntriesTable {
  journeyId: string;
  userId: string;
  entryCount: Generated<number>;
  firstEnteredAt: Timestamp;
  lastEnteredAt: Timestamp;
}

export interface JourneyLogsTable {
  id: Generated<string>;
  journeyStateId: string;
  fromNodeId: string | null;
  toNodeId: string;
  action: string;
  detail: Json<JsonObject | null>;
  createdAt: Timestamp;
}

/** Exact journey-state counts per (journey, status), kept by triggers (migration 0070); summed over shards. */
export interface JourneyStateCountsTable {
  journeyId: string;
  status: JourneyStatus;
  shard: number;
  n: number;
}

export type SimulationStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface SimulationJobsTable {
  id: Generated<string>;
  journeyId: string;
  status: ColumnType<SimulationStatus, SimulationStatus | undefined, SimulationStatus>;
  windowSince: Timestamp;
  windowUntil: Timestamp;
  maxEnrollments: number;
  processed: Generated<number>;
  total: number | null;
  /** the report (core/journeys/simulation.ts, SimulationResult) once completed */
  result: Json<JsonObject> | null;
  error: string | null;
  createdBy: string | null;
  startedAt: NullableTimestamp;
  completedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** 0300: a batch enrollment's users still to be dispatched (journeys/enroll-batch-users.ts) */
export interface EnrollBatchUsersTable {
  batchId: string;
  position: number;
  userId: string;
  userEmail: string;
  properties: Json<JsonObject>;
  createdAt: Timestamp;
}
