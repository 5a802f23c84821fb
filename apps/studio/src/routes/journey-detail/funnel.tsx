import { ErrorPanel, Skeleton } from '../../components/feedback';
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
    <table aria-label="Funnel">
      <thead>
        <tr>
          <th scope="col">Step</th>
          <th scope="col">Action</th>
          <th scope="col">Enrollments</th>
        </tr>
      </thead>
      <tbody>
        {steps.map((step) => (
          <tr key={`${step.nodeId}:${step.action}`}>
            <td>
              <code>{step.nodeId}</code>
            </td>
            <td>{step.action}</td>
            <td style={{ width: '50%' }}>
              <div className="row">
                <div
                  aria-hidden
                  style={{ background: 'var(--accent)', height: 10, borderRadius: 4, width: `${(step.enrollments / top) * 80}%`, minWidth: 2 }}
                />
                {step.enrollments}
              </div>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
