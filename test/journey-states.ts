import { randomUUID } from 'node:crypto';
import type { Db } from '@waymark/core/db/database';
import type { SendJourneyEmailInput } from '@waymark/core/journeys/journey-email';
import { enterJourney } from '@waymark/core/journeys/run-steps';
import { deploymentCategories } from './deployment-categories';

/** Every journey state row of one user in one journey (a test creates fresh user ids, so no other run's rows). */
export function journeyStatesOf(db: Db, userId: string, journeyId: string) {
  return db.selectFrom('journeyStates').selectAll().where('userId', '=', userId).where('journeyId', '=', journeyId).execute();
}

/**
 * A live run of `journeyId` for `userId` at `to`, and the input of its `welcome` email step
 * (category `journey`, a marketing one), for a test that calls the journey send path directly.
 */
export async function seedJourneyEmailStep(db: Db, options: { journeyId: string; userId: string; to: string; run: string }): Promise<SendJourneyEmailInput> {
  const state = await db
    .insertInto('journeyStates')
    .values({ journeyId: options.journeyId, userId: options.userId, userEmail: options.to, workflowId: `wf-${options.run}`, context: '{}' })
    .returning(['id', 'userId'])
    .executeTakeFirstOrThrow();
  return {
    stateId: state.id,
    journeyId: options.journeyId,
    userId: state.userId,
    userEmail: options.to,
    templateKey: 'welcome',
    nodeId: 'welcome',
    data: {},
    category: 'journey',
    idempotencyKey: `wf-${options.run}:welcome:1`,
  };
}

/** A fresh person's `welcome` step of `test-journey` (seedJourneyEmailStep): to watch a send held or sent. */
export function welcomeJourneyEmail(db: Db, to: string, run: string): Promise<SendJourneyEmailInput> {
  return seedJourneyEmailStep(db, { journeyId: 'test-journey', userId: `u-${run}`, to, run });
}

/**
 * A run of `journeyId` entered by hand, as the workflow's entry makes it (once per person), for a
 * test that drives the run's steps itself. Throws when the entry is refused.
 */
export async function enterByHand(db: Db, options: { journeyId: string; userId: string; trigger: { event: string; eventId: string } }) {
  const workflowId = `journey:${options.journeyId}:${randomUUID()}`;
  const entry = await enterJourney(
    db,
    {
      journeyId: options.journeyId,
      userId: options.userId,
      userEmail: `${options.userId}@example.com`,
      workflowId,
      runId: randomUUID(),
      entryLimit: 'once',
      context: { trigger: options.trigger },
    },
    deploymentCategories,
  );
  if (!entry.entered) throw new Error(`not entered: ${entry.reason}`);
  return { stateId: entry.stateId, workflowId };
}
