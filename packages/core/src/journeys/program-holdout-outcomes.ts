import { sql } from 'kysely';
import { programHoldsCategory, type DeliveryPolicy } from '@waymark/journey';
import type { Db } from '../db/database';
import { sendCategoryKey } from '../delivery/send-category';
import { notFound } from '../errors/app-error';
import { goalOutcome, type GoalOutcome } from '../outcomes/goal-outcome';
import { entryDayFilters, goalView, type OutcomesQuery } from './journey-outcomes';
import type { JourneyRegistry } from './registry';

/** One journey's goal measured against the program holdout: the same arms and lift as its own outcomes. */
export interface ProgramJourneyOutcome extends GoalOutcome {
  journeyId: string;
  goal: { event: string; within: string };
}

export interface ProgramHoldoutOutcomes {
  percent: number;
  categories: string[];
  journeys: ProgramJourneyOutcome[];
}

/**
 * What lifecycle email as a whole does (docs/journeys.md, "The program holdout: lifecycle email as
 * a whole"): per journey with a goal whose category the program holds out, people the program held
 * out (`holdout`) against people in neither the program's nor the journey's holdout (`treatment`),
 * with the lift of `goalOutcome`, as a journey's own outcomes. Read from the counters the entry and
 * conversion statements keep (migrations/0280), a few rows per day and shard, so a read costs the
 * same at any number of enrollments; people are counted by their entry day (`from`/`to`).
 * 404 when the policy holds nobody out.
 */
export async function getProgramHoldoutOutcomes(
  db: Db,
  registry: Pick<JourneyRegistry, 'all'>,
  policy: DeliveryPolicy,
  query: Pick<OutcomesQuery, 'from' | 'to'>,
): Promise<ProgramHoldoutOutcomes> {
  const holdout = policy.holdout;
  if (holdout === undefined)
    throw notFound(
      'The delivery policy has no program holdout (journeys/delivery-policy.ts `holdout`; docs/journeys.md, "The program holdout: lifecycle email as a whole")',
    );
  // a policy naming a required category stops start-up (runtime.ts), so every category named is held
  const measured = registry
    .all()
    .flatMap((journey) =>
      journey.goal === undefined || !programHoldsCategory(policy, sendCategoryKey(journey.category)) ? [] : [{ ...journey, goal: journey.goal }],
    );
  const ids = measured.map((journey) => journey.id);
  const { rows } =
    ids.length === 0
      ? { rows: [] }
      : await sql<{ journeyId: string; holdout: boolean; enrolled: number; converted: number; value: number }>`
          select journey_id, holdout, sum(enrolled)::float8 as enrolled, sum(converted)::float8 as converted, sum(value)::float8 as value
          from program_holdout_counts
          where ${sql.join([sql`journey_id = any(${ids}::text[])`, ...entryDayFilters(query)], sql` and `)}
          group by journey_id, holdout`.execute(db);
  const arm = (journeyId: string, heldOut: boolean) => rows.find((row) => row.journeyId === journeyId && row.holdout === heldOut);
  return {
    percent: holdout.percent,
    categories: [...holdout.categories],
    journeys: measured.map((journey) => ({
      journeyId: journey.id,
      goal: goalView(journey.goal),
      // the program holds someone out of every listed journey: its arm is there, zeros until someone enters
      ...goalOutcome(arm(journey.id, false), arm(journey.id, true), true),
    })),
  };
}
