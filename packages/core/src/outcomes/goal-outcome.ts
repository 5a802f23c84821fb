import { liftOf, rate, type Lift } from './lift-interval';

/** One arm of a journey's or a broadcast's outcome (docs/journeys.md, "Goals, holdouts and lift"). */
export interface ArmOutcome {
  enrolled: number;
  converted: number;
  /** converted / enrolled (0 while nobody enrolled) */
  conversionRate: number;
  /** the sum of the conversions' values (the goal's `value`) */
  value: number;
  valuePerPerson: number;
}

/** An arm's counters as read: people in it, of them converted, and the sum of their values. */
export interface ArmTotals {
  enrolled: number;
  converted: number;
  value: number;
}

export interface GoalOutcome {
  arms: { treatment: ArmOutcome; holdout: ArmOutcome | null };
  lift: Lift | null;
}

export function armOutcome(totals: ArmTotals | undefined): ArmOutcome {
  const enrolled = totals?.enrolled ?? 0;
  const converted = totals?.converted ?? 0;
  const value = totals?.value ?? 0;
  return { enrolled, converted, conversionRate: rate({ enrolled, converted }), value, valuePerPerson: enrolled === 0 ? 0 : value / enrolled };
}

/**
 * The arms and the lift of treatment over holdout, one rule for journeys and broadcasts: `holdout`
 * null when nobody is held out; no lift without both a goal and a holdout.
 */
export function goalOutcome(treatment: ArmTotals | undefined, holdout: ArmTotals | undefined | null, hasGoal: boolean): GoalOutcome {
  const treatmentArm = armOutcome(treatment);
  const holdoutArm = holdout === null ? null : armOutcome(holdout);
  return {
    arms: { treatment: treatmentArm, holdout: holdoutArm },
    lift: holdoutArm === null || !hasGoal ? null : liftOf(treatmentArm, holdoutArm),
  };
}
