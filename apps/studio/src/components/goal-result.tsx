import type { components } from '../api/schema';
import { formatNumber } from './format';
import { formatRate, liftInWords } from './lift-words';
import { Cell, ColumnHeaders, TableRegion } from './table-region';

type Arm = components['schemas']['OutcomeArm'];

const money = (value: number) => value.toLocaleString(undefined, { maximumFractionDigits: 2 });

function ArmRow({ label, arm }: { label: string; arm: Arm }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <Cell label="Enrolled">{formatNumber(arm.enrolled)}</Cell>
      <Cell label="Converted">{formatNumber(arm.converted)}</Cell>
      <Cell label="Rate">{formatRate(arm.conversionRate)}</Cell>
      <Cell label="Value per person">{money(arm.valuePerPerson)}</Cell>
    </tr>
  );
}

/**
 * A goal's result, the same for a journey's outcomes and a broadcast's `stats.goal`: the lift over
 * the holdout in words, both arms' numbers, and the interval's method (docs/journeys.md, "Goals,
 * holdouts and lift").
 */
export function GoalResult({
  arms,
  lift,
  hasGoal,
  of,
  testId,
}: {
  arms: { treatment: Arm; holdout: Arm | null };
  lift: { absolute: number; ci95: readonly number[]; method: string } | null;
  hasGoal: boolean;
  of: 'journey' | 'broadcast';
  testId: string;
}) {
  return (
    <>
      <p data-testid={testId}>
        <strong>{liftInWords({ arms, lift, hasGoal, of })}</strong>
      </p>
      <TableRegion label="Outcomes per arm">
        <ColumnHeaders names={['Arm', 'Enrolled', 'Converted', 'Rate', 'Value per person']} />
        <tbody>
          <ArmRow label={of === 'journey' ? 'With the emails' : 'With the email'} arm={arms.treatment} />
          {arms.holdout === null ? null : <ArmRow label="Held out" arm={arms.holdout} />}
        </tbody>
      </TableRegion>
      {lift === null ? null : (
        <p className="muted">
          Interval: {lift.method}, valid however often it is read while the {of} runs.
        </p>
      )}
    </>
  );
}
