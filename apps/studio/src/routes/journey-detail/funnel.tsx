import { ErrorPanel, Skeleton } from '../../components/feedback';
import { Cell, ColumnHeaders, TableRegion } from '../../components/table-region';
import { useJourneyFunnelQuery } from '../../data/journeys/journey-funnel-query';

/** How many enrollments reached each step, as bars against the busiest step. */
export function Funnel({ journeyId }: { journeyId: string }) {
  const funnel = useJourneyFunnelQuery(journeyId);
  if (funnel.isPending) return <Skeleton rows={3} />;
  if (funnel.isError) return <ErrorPanel error={funnel.error} />;
  const steps = funnel.data.steps;
  if (steps.length === 0) return <p className="muted">Nobody has entered this journey yet. Enroll someone below or send its trigger event.</p>;
  const top = Math.max(...steps.map((step) => step.enrollments), 1);
  return (
    <TableRegion label="Funnel">
      <ColumnHeaders names={['Step', 'Action', 'Enrollments']} />
      <tbody>
        {steps.map((step) => (
          <tr key={`${step.nodeId}:${step.action}`}>
            <th scope="row">
              <code>{step.nodeId}</code>
            </th>
            <Cell label="Action">{step.action}</Cell>
            <Cell label="Enrollments">
              <div className="row">
                <div
                  aria-hidden
                  style={{ background: 'var(--accent)', height: 10, borderRadius: 4, width: `${(step.enrollments / top) * 80}%`, minWidth: 2 }}
                />
                {step.enrollments}
              </div>
            </Cell>
          </tr>
        ))}
      </tbody>
    </TableRegion>
  );
}
