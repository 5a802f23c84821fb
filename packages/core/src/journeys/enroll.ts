import { randomUUID } from 'node:crypto';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import { evaluateConditions } from '@waymark/journey';
import type { Db } from '../db/database';
import type { BackgroundJobs } from '../jobs/background-jobs';
import { checkSendGateForAddresses } from '../preferences/send-gate';
import { sendCategory } from '../delivery/send-category';
import { effectiveEnabled, loadOverrides } from './effective-enabled';
import { dropBatchUsers, storeBatchUsers } from './enroll-batch-users';
import type { EnrollEvent, EnrollmentBatch, EnrollUser } from './enroll-dispatch';
import { primitiveProperties } from './orchestrator';
import { LIVE_STATUSES } from './live-statuses';
import type { JourneyRegistry } from './registry';

export interface EnrollDeps {
  db: Db;
  journeys: JourneyRegistry;
  /** the ingest pipeline, passed in: events route into journeys, so journeys may not import events */
  ingest(event: EnrollEvent): Promise<unknown>;
}

export interface BatchEnrollDeps extends Omit<EnrollDeps, 'ingest'> {
  /** journeys/categories.ts: a journey of a required category enrolls people whatever their opt-outs */
  categories: Pick<PreferenceCategories, 'find'>;
  /** hands the accepted users to a durable background run (see enroll-dispatch.ts) */
  jobs: BackgroundJobs;
}

/** Enrollment dispatches the journey's trigger event through the normal pipeline. */
export async function enrollUser(deps: EnrollDeps, journeyId: string, user: EnrollUser): Promise<{ event: string }> {
  const journey = deps.journeys.get(journeyId);
  await deps.ingest({ name: journey.trigger.event, userId: user.userId, email: user.userEmail, eventProperties: user.properties ?? {}, source: 'enroll' });
  return { event: journey.trigger.event };
}

/**
 * Batch enrollment. The entry guards (enabled, trigger.where, entry limit, already enrolled,
 * preferences through the send gate, preferences/send-gate.ts) are checked up front in set-based
 * queries so rejected users are reported as skipped; the durable guards in the run still decide a race. The accepted users are then
 * stored (enroll-batch-users.ts) and handed, in one call, to a durable background run that dispatches their trigger events with
 * bounded parallelism (docs/journeys.md, "Batch enrollment"): the answer does not wait for 500
 * workflow starts, and a crash after it loses nothing.
 */
export async function batchEnroll(
  deps: BatchEnrollDeps,
  journeyId: string,
  users: readonly EnrollUser[],
): Promise<{ enrolled: number; skipped: number; results: { userId: string; enrolled: boolean }[] }> {
  const journey = deps.journeys.get(journeyId);
  const userIds = [...new Set(users.map((user) => user.userId))];
  const [overrides, entered, live, gate] = await Promise.all([
    loadOverrides(deps.db, [journeyId]),
    journey.entryLimit === 'once'
      ? deps.db.selectFrom('journeyEntries').select('userId').where('journeyId', '=', journeyId).where('userId', 'in', userIds).execute()
      : Promise.resolve([]),
    deps.db
      .selectFrom('journeyStates')
      .select('userId')
      .where('journeyId', '=', journeyId)
      .where('userId', 'in', userIds)
      .where('status', 'in', LIVE_STATUSES)
      .execute(),
    // the category the run's entry guard asks for (run-steps.ts enterJourney)
    checkSendGateForAddresses(
      deps.db,
      users.map((user) => user.userEmail),
      sendCategory(deps.categories, journey.category),
    ),
  ]);
  const enabled = effectiveEnabled(deps.journeys, journeyId, overrides.get(journeyId)?.enabled);
  const rejected = new Set([...entered.map((row) => row.userId), ...live.map((row) => row.userId)]);
  const seen = new Set<string>();

  const eligible = users.map((user) => {
    const ok =
      enabled &&
      !seen.has(user.userId) &&
      !rejected.has(user.userId) &&
      gate.get(user.userEmail)!.allowed &&
      evaluateConditions(journey.trigger.where, primitiveProperties(user.properties));
    seen.add(user.userId);
    return ok;
  });
  const results = users.map((user, index) => ({ userId: user.userId, enrolled: eligible[index]! }));
  const accepted = users.filter((_, index) => eligible[index]);
  if (accepted.length > 0) {
    // the users wait in PostgreSQL, where an erasure can reach them; the run's input names the batch
    const batchId = randomUUID();
    await storeBatchUsers(deps.db, batchId, accepted);
    const batch: EnrollmentBatch = { batchId, journeyId, event: journey.trigger.event, total: accepted.length };
    await deps.jobs.start('enroll-batch', `${journeyId}:${batchId}`, batch).catch(async (error: unknown) => {
      await dropBatchUsers(deps.db, batchId);
      throw error;
    });
  }
  const enrolled = results.filter((result) => result.enrolled).length;
  return { enrolled, skipped: results.length - enrolled, results };
}
