import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';
import type { EnrollUser } from './enroll-dispatch';

/**
 * A batch enrollment's accepted users wait here (enroll_batch_users) until its background run
 * dispatches them, rather than in the run's Temporal input: a Temporal history cannot be edited,
 * and an erasure has to reach a person the run has not enrolled yet, or the run would enrol them
 * again after it (docs/security.md, "Personal data and erasure"). Each chunk's rows go once its
 * users' trigger events are stored.
 */
export async function storeBatchUsers(db: Db, batchId: string, users: readonly EnrollUser[]): Promise<void> {
  if (users.length === 0) return;
  await db
    .insertInto('enrollBatchUsers')
    .values(
      users.map((user, position) => ({
        batchId,
        position,
        userId: user.userId,
        userEmail: user.userEmail,
        properties: JSON.stringify(user.properties ?? {}),
      })),
    )
    .execute();
}

/** The users at positions [from, to) still waiting, in order (an erased person's row is gone). */
export async function batchUsersBetween(db: Db, batchId: string, from: number, to: number): Promise<EnrollUser[]> {
  const rows = await db
    .selectFrom('enrollBatchUsers')
    .select(['userId', 'userEmail', 'properties'])
    .where('batchId', '=', batchId)
    .where('position', '>=', from)
    .where('position', '<', to)
    .orderBy('position')
    .execute();
  return rows.map((row) => ({ userId: row.userId, userEmail: row.userEmail, properties: row.properties }));
}

/** Drops the batch's rows at positions [from, to) (a dispatched chunk), or all of them (a cancelled run). */
export async function dropBatchUsers(db: Db, batchId: string, range?: { from: number; to: number }): Promise<void> {
  let query = db.deleteFrom('enrollBatchUsers').where('batchId', '=', batchId);
  if (range !== undefined) query = query.where('position', '>=', range.from).where('position', '<', range.to);
  await query.execute();
}

/** For a removal: the person's rows in every batch not yet dispatched, by user id or address. Answers how many went. */
export async function forgetBatchUsersOf(db: Db, userIds: RawBuilder<string[]>, email: string | null): Promise<number> {
  const address = email?.trim().toLowerCase() ?? '';
  const result = await db
    .deleteFrom('enrollBatchUsers')
    .where((eb) => eb.or([eb('userId', '=', sql<string>`any(${userIds})`), ...(address === '' ? [] : [eb(sql`lower(user_email)`, '=', address)])]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
