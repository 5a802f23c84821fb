/** Kysely table types: contacts, their email preferences, kept suppressions, lists and contact imports (db/schema.ts gathers them into Database). */
import type { ColumnType, Generated, GeneratedAlways } from 'kysely';
import type { Json, JsonObject, NullableTimestamp, Timestamp } from './columns';

export interface ContactsTable {
  id: Generated<string>;
  externalId: string | null;
  email: string | null;
  properties: Json<JsonObject>;
  firstSeenAt: Timestamp;
  lastSeenAt: Timestamp;
  /** lastSeenAt truncated to the minute (UTC), computed by PostgreSQL: the indexed sort key of the contacts list (migration 0130) */
  lastSeenMinute: GeneratedAlways<Date>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface EmailPreferencesTable {
  id: Generated<string>;
  userId: string | null;
  email: string;
  unsubscribedAll: Generated<boolean>;
  suppressed: Generated<boolean>;
  suppressionReason: string | null;
  bounceCount: Generated<number>;
  categories: Json<Record<string, boolean>>;
  suppressedAt: NullableTimestamp;
  lastBounceAt: NullableTimestamp;
  complainedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** migrations/0160: the suppression of an address kept after its contact is deleted or erased */
export interface AddressSuppressionsTable {
  /** SHA-256 (hex) of lower(btrim(email)) */
  addressHash: string;
  reason: 'bounced' | 'complained' | 'manual' | 'unsubscribed';
  suppressedAt: Timestamp;
  createdAt: Generated<Date>;
}

export interface ListsTable {
  id: Generated<string>;
  key: string;
  name: string;
  description: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface ListMembershipsTable {
  listId: string;
  contactId: string;
  subscribed: boolean;
  updatedAt: Timestamp;
}

export type ImportStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface ImportJobsTable {
  id: Generated<string>;
  status: ColumnType<ImportStatus, ImportStatus | undefined, ImportStatus>;
  format: 'csv' | 'json';
  fileName: string | null;
  data: string;
  totalRows: Generated<number>;
  processedRows: Generated<number>;
  failedRows: Generated<number>;
  errors: Json<{ row: number; error: string }[]>;
  createdBy: string | null;
  startedAt: NullableTimestamp;
  completedAt: NullableTimestamp;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}
