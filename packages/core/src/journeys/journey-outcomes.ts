import { sql, type RawBuilder } from 'kysely';
import type { JourneyGoal } from '@waymark/journey';
import type { Db } from '../db/database';
import { conflict } from '../errors/app-error';
import { dailySeries, type DailyOutcome } from '../outcomes/daily-outcome';
import { goalOutcome, type ArmOutcome } from '../outcomes/goal-outcome';
import type { Lift } from '../outcomes/lift-interval';
import type { JourneyRegistry } from './registry';

export interface StepOutcome {
  step: string;
  reached: number;
  sent: number;
  humanOpened: number;
  humanClicked: number;
  /** people who converted after reaching this step */
  converted: number;
}

export interface JourneyOutcomes {
  journeyId: string;
  goal: { event: string; within: string } | null;
  arms: { treatment: ArmOutcome; holdout: ArmOutcome | null };
  lift: Lift | null;
  byStep: StepOutcome[];
  /** each day someone entered (by entry day, conversions with them), oldest first: the series the studio's chart draws */
  daily: DailyOutcome[];
}

export interface OutcomesQuery {
  /** people who entered on or after this day (UTC) */
  from?: Date | undefined;
  /** people who entered on or before this day (UTC) */
  to?: Date | undefined;
  version?: string | undefined;
}

/**
 * A journey's outcomes per arm with the lift of treatment over holdout (docs/journeys.md, "Goals,
 * holdouts and lift"). Read from the counters the database keeps as people enter, move, get
 * emails, open them and convert (migrations/0190): a few rows per day, version and shard, so a
 * read costs the same at a hundred enrollments and at a million. People are counted by the day
 * they entered, conversions included, so a date range compares the same people in both columns.
 * `byStep` is the treatment arm's (held-out people are sent nothing).
 */
export async function getJourneyOutcomes(db: Db, registry: JourneyRegistry, journeyId: string, query: OutcomesQuery): Promise<JourneyOutcomes> {
  const journey = registry.get(journeyId);
  if (journey.goal === undefined && journey.holdout === undefined)
    throw conflict(`Journey '${journeyId}' declares neither a goal nor a holdout, so it has no outcomes (docs/journeys.md, "Goals, holdouts and lift")`);
  const filters = sql.join(
    [sql`journey_id = ${journeyId}`, ...entryDayFilters(query), ...(query.version === undefined ? [] : [sql`journey_version = ${query.version}`])],
    sql` and `,
  );
  const [arms, steps, days] = await Promise.all([
    sql<{ holdout: boolean; enrolled: number; converted: number; value: number }>`
      select holdout, sum(enrolled)::float8 as enrolled, sum(converted)::float8 as converted, sum(value)::float8 as value
      from journey_outcome_counts where ${filters} group by holdout`.execute(db),
    sql<Omit<StepOutcome, 'step'> & { nodeId: string }>`
      select node_id, sum(reached)::float8 as reached, sum(sent)::float8 as sent, sum(human_opened)::float8 as human_opened,
             sum(human_clicked)::float8 as human_clicked, sum(converted)::float8 as converted
      from journey_step_counts where ${filters} and not holdout
      group by node_id order by sum(reached) desc, node_id`.execute(db),
    // the same counters by entry day: one row per day and arm, so the series costs O(days) too
    sql<{ day: string; holdout: boolean; enrolled: number; converted: number }>`
      select to_char(day, 'YYYY-MM-DD') as day, holdout, sum(enrolled)::float8 as enrolled, sum(converted)::float8 as converted
      from journey_outcome_counts where ${filters} group by day, holdout order by day`.execute(db),
  ]);
  const heldOut = arms.rows.find((row) => row.holdout);
  const { arms: outcomeArms, lift } = goalOutcome(
    arms.rows.find((row) => !row.holdout),
    journey.holdout === undefined && heldOut === undefined ? null : heldOut,
    journey.goal !== undefined,
  );
  return {
    journeyId,
    goal: journey.goal === undefined ? null : goalView(journey.goal),
    arms: outcomeArms,
    lift,
    byStep: steps.rows.map(({ nodeId, ...counts }) => ({ step: nodeId, ...counts })),
    daily: dailySeries(days.rows, outcomeArms.holdout !== null),
  };
}

/** A goal as outcomes answer it: its event and its window as written. */
export function goalView(goal: Pick<JourneyGoal, 'event' | 'within'>): { event: string; within: string } {
  return { event: goal.event, within: String(goal.within) };
}

/** The counters' conditions of `from`/`to`: rows of entry days (UTC) within them, bounds included. */
export function entryDayFilters(query: Pick<OutcomesQuery, 'from' | 'to'>): RawBuilder<unknown>[] {
  return [
    ...(query.from === undefined ? [] : [sql`day >= ${utcDay(query.from)}::date`]),
    ...(query.to === undefined ? [] : [sql`day <= ${utcDay(query.to)}::date`]),
  ];
}

/**
 * The UTC day of a bound, as PostgreSQL reads it. Counters start in 1970 (no journey ran before),
 * so an earlier bound reads as 1969-12-31: PostgreSQL has no year 0, which an ISO string can name.
 */
function utcDay(date: Date): string {
  return date.getUTCFullYear() < 1970 ? '1969-12-31' : date.toISOString().slice(0, 10);
}
