import type { Db } from '@waymark/core/db/database';
import type { SendJourneyEmailInput } from '@waymark/core/journeys/journey-email';

/** Every journey state row of one user in one journey (a test creates fresh user ids, so no other run's rows). */
export function journeyStatesOf(db: Db, userId: string, journeyId: string) {
  return db.selectFrom('journeyStates').selectAll().where('userId', '=', userId).where('journeyId', '=', journeyId).execute();
}

/**
 * A live journey state of a fresh person at `to` and the input of its `welcome` email (category
 * `journey`, marketing mail): what a test hands deliverJourneyEmail to watch a send held or sent.
 */
export async function welcomeJourneyEmail(db: Db, to: string, run: string): Promise<SendJourneyEmailInput> {
  const state = await db
    .insertInto('journeyStates')
    .values({ journeyId: 'test-journey', userId: `u-${run}`, userEmail: to, workflowId: `wf-${run}`, context: '{}' })
    .returning(['id', 'userId'])
    .executeTakeFirstOrThrow();
  return {
    stateId: state.id,
    journeyId: 'test-journey',
    userId: state.userId,
    userEmail: to,
    templateKey: 'welcome',
    nodeId: 'welcome',
    data: {},
    category: 'journey',
    idempotencyKey: `wf-${run}:welcome:1`,
  };
}
