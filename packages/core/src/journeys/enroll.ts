import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { evaluateConditions } from '@waymark/journey';
import type { Db } from '../db/database';
import type { BackgroundJobs } from '../jobs/background-jobs';
import { effectiveEnabled, loadOverrides } from './effective-enabled';
import { primitiveProperties } from './orchestrator';
import { LIVE_STATUSES } from './live-statuses';
import type { JourneyRegistry } from './registry';

export interface EnrollUser {
  userId: string;
  userEmail: string;
  properties?: Record<string, unknown> | undefined;
}

/** The trigger event an enrollment sends through the ingest pipeline (core/events/ingest.ts). */
export interface EnrollEvent {
  name: string;
  userId: string;
  email: string;
  eventProperties: Record<string, unknown>;
  source: 'enroll';
}

export interface EnrollDeps {
  db: Db;
  journeys: JourneyRegistry;
  /** the ingest pipeline, passed in: events route into journeys, so journeys may not import events */
  ingest(event: EnrollEvent): Promise<unknown>;
}

export interface BatchEnrollDeps extends Omit<EnrollDeps, 'ingest'> {
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
 * preferences) are checked up front in three set-based queries so rejected users are reported
 * as skipped; the durable guards in the run still decide a race. The accepted users are then
 * handed, in one call, to a durable background run that dispatches their trigger events with
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
  const emails = [...new Set(users.map((user) => user.userEmail.toLowerCase()))];
  const [overrides, entered, live, blocked] = await Promise.all([
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
    sql<{ email: string }>`
      select lower(email) as email from email_preferences
      where lower(email) = any(${emails}::text[])
      group by lower(email)
      having bool_or(suppressed) or bool_or(unsubscribed_all) or bool_or((categories ->> 'journey')::boolean = false)`.execute(deps.db),
  ]);
  const enabled = effectiveEnabled(deps.journeys, journeyId, overrides.get(journeyId)?.enabled);
  const rejected = new Set([...entered.map((row) => row.userId), ...live.map((row) => row.userId)]);
  const blockedEmails = new Set(blocked.rows.map((row) => row.email));
  const seen = new Set<string>();

  const eligible = users.map((user) => {
    const ok =
      enabled &&
      !seen.has(user.userId) &&
      !rejected.has(user.userId) &&
      !blockedEmails.has(user.userEmail.toLowerCase()) &&
      evaluateConditions(journey.trigger.where, primitiveProperties(user.properties));
    seen.add(user.userId);
    return ok;
  });
  const results = users.map((user, index) => ({ userId: user.userId, enrolled: eligible[index]! }));
  const accepted = users.filter((_, index) => eligible[index]);
  if (accepted.length > 0) {
    // no job row: the batch (an EnrollmentBatch, enroll-dispatch.ts) is the run's input
    const batchId = randomUUID();
    await deps.jobs.start('enroll-batch', `${journeyId}:${batchId}`, { batchId, journeyId, event: journey.trigger.event, users: accepted });
  }
  const enrolled = results.filter((result) => result.enrolled).length;
  return { enrolled, skipped: results.length - enrolled, results };
}
