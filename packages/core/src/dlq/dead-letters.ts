import { sql, type RawBuilder } from 'kysely';
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

/**
 * Deletes the parked work that a retry would carry out on one of these people again, for their
 * erasure: an event (it would re-create the contact), an email (it would mail them) and a journey
 * start or run (it would enrol them), matched by the user id or the address each payload names
 * (`userIds`: the erased contact's own user ids as SQL, `ownUserIds`, its lower-cased address among
 * them when it owns it). Answers how many entries went.
 */
export async function deleteParkedWorkOf(db: Db, userIds: RawBuilder<string[]>): Promise<number> {
  const result = await db
    .deleteFrom('dlqEntries')
    .where('source', 'in', ['event', 'email', 'journey'] satisfies DeadLetterSource[])
    .where((eb) =>
      eb.or([
        eb(sql<string>`coalesce(payload->>'userId', payload->'request'->>'userId')`, '=', sql<string>`any(${userIds})`),
        eb(sql<string>`lower(coalesce(payload->>'email', payload->>'to', payload->'request'->>'userEmail'))`, '=', sql<string>`any(${userIds})`),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
