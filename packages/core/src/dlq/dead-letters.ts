import type { Db } from '../db/database';
import type { JsonObject } from '../db/schema';

/** Where work that gave up after its retries is parked, with what is needed to retry it. */
export type DeadLetterSource = 'email' | 'journey' | 'webhook' | 'webhook-delivery' | 'event' | 'alert' | 'import' | 'replay';

export interface DeadLetterInput {
  source: DeadLetterSource;
  sourceId: string | null;
  payload: JsonObject;
  error: string;
  retryCount?: number;
}

export async function recordDeadLetter(db: Db, entry: DeadLetterInput): Promise<string> {
  const row = await db
    .insertInto('dlqEntries')
    .values({
      source: entry.source,
      sourceId: entry.sourceId,
      payload: JSON.stringify(entry.payload),
      error: entry.error,
      retryCount: entry.retryCount ?? 0,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
