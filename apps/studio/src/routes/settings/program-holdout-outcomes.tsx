import { Link } from 'react-router';
import { ErrorPanel, Skeleton } from '../../components/feedback';
import { GoalResult } from '../../components/goal-result';
import { useProgramHoldoutOutcomesQuery } from '../../data/delivery-policy/program-holdout-outcomes-query';

/**
 * What lifecycle email as a whole does: per journey with a goal in a held category, the people the
 * program held out against those who got the emails, the lift in words and both arms (the shared
 * GoalResult; docs/journeys.md, "The program holdout: lifecycle email as a whole").
 */
export function ProgramHoldoutOutcomes() {
  const outcomes = useProgramHoldoutOutcomesQuery();
  if (outcomes.isPending) return <Skeleton rows={2} />;
  if (outcomes.isError) return <ErrorPanel error={outcomes.error} />;
  const { journeys } = outcomes.data;
  if (journeys.length === 0)
    return (
      <p className="muted">
        No journey with a goal sends in these categories, so there is nothing to measure yet: declare a journey’s <code>goal</code> in its code.
      </p>
    );
  return (
    <div className="stack">
      <p className="muted">
        Per journey with a goal: the people the program holds out, against the people in neither the program’s nor the journey’s own holdout. Everyone who
        entered, counted by their arm when they entered.
      </p>
      {journeys.map((journey) => (
        <section key={journey.journeyId} className="stack" aria-labelledby={`program-holdout-${journey.journeyId}`}>
          <h3 id={`program-holdout-${journey.journeyId}`}>
            <Link to={`/studio/journeys/${encodeURIComponent(journey.journeyId)}`}>{journey.journeyId}</Link>
          </h3>
          <p className="muted">
            Goal: <code>{journey.goal.event}</code> within {journey.goal.within} of entry.
          </p>
          <GoalResult arms={journey.arms} lift={journey.lift} hasGoal of="journey" testId={`program-lift-${journey.journeyId}`} />
        </section>
      ))}
    </div>
  );
}
