import type { Db } from '@waymark/core/db/database';

/** Every journey state row of one user in one journey (a test creates fresh user ids, so no other run's rows). */
export function journeyStatesOf(db: Db, userId: string, journeyId: string) {
  return db.selectFrom('journeyStates').selectAll().where('userId', '=', userId).where('journeyId', '=', journeyId).execute();
}
