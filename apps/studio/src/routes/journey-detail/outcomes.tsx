import { useState } from 'react';
import type { components } from '../../api/schema';
import { ErrorPanel, Skeleton } from '../../components/feedback';
import { formatNumber } from '../../components/format';
import { GoalResult } from '../../components/goal-result';
import { OutcomesChart } from '../../components/outcomes-chart';
import { useJourneyOutcomesQuery } from '../../data/journeys/journey-outcomes-query';
import { journeyVersions, UNVERSIONED } from './journey-map';
import { Cell, ColumnHeaders, TableRegion } from '../../components/table-region';

type JourneyDetailBody = components['schemas']['JourneyDetail'];

/**
 * Does the journey change what people do: the lift of the emails over the holdout in words, both
 * arms' numbers and the treatment arm per step (docs/journeys.md, "Goals, holdouts and lift").
 * Everyone who entered (all versions, or the one chosen), with each arm's conversion over time (components/outcomes-chart.tsx).
 */
export function Outcomes({ detail }: { detail: JourneyDetailBody }) {
  const [version, setVersion] = useState<string | undefined>(undefined);
  // runs started before versions were recorded are counted under the empty version
  const outcomes = useJourneyOutcomesQuery(detail.id, { enabled: true, version: version === UNVERSIONED ? '' : version });
  const versions = journeyVersions(detail);
  const picker =
    versions.length > 0 ? (
      <label className="field">
        Outcomes of
        <select value={version ?? ''} onChange={(event) => setVersion(event.target.value === '' ? undefined : event.target.value)}>
          <option value="">all versions</option>
          {versions.map((entry) => (
            <option key={entry} value={entry}>
              {entry === UNVERSIONED ? 'runs started before versions' : `v${entry}`}
            </option>
          ))}
        </select>
      </label>
    ) : null;
  if (outcomes.isPending) return <Skeleton rows={3} />;
  if (outcomes.isError) return <ErrorPanel error={outcomes.error} />;
  const { goal, arms, lift, byStep, daily } = outcomes.data;
  return (
    <div className="stack">
      {picker}
      {goal === null ? null : (
        <p className="muted">
          Goal: <code>{goal.event}</code> within {goal.within} of entry.{' '}
          {version === undefined ? 'Everyone who entered, all versions.' : 'Everyone who entered on this version.'}
        </p>
      )}
      <GoalResult arms={arms} lift={lift} hasGoal={goal !== null} of="journey" testId="journey-lift" />
      {goal === null ? null : <OutcomesChart daily={daily} of="journey" />}
      {byStep.length === 0 ? null : (
        <TableRegion label="Outcomes per step">
          <ColumnHeaders names={['Step', 'Reached', 'Sent', 'Opened', 'Clicked', 'Converted after']} />
          <tbody>
            {byStep.map((step) => (
              <tr key={step.step}>
                <th scope="row">
                  <code>{step.step}</code>
                </th>
                <Cell label="Reached">{formatNumber(step.reached)}</Cell>
                <Cell label="Sent">{formatNumber(step.sent)}</Cell>
                <Cell label="Opened">{formatNumber(step.humanOpened)}</Cell>
                <Cell label="Clicked">{formatNumber(step.humanClicked)}</Cell>
                <Cell label="Converted after">{formatNumber(step.converted)}</Cell>
              </tr>
            ))}
          </tbody>
        </TableRegion>
      )}
    </div>
  );
}
