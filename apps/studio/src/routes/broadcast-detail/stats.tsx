import { Trophy } from 'lucide-react';
import type { components } from '../../api/schema';
import { formatNumber } from '../../components/format';
import { GoalResult } from '../../components/goal-result';
import { OutcomesChart } from '../../components/outcomes-chart';
import { Cell, ColumnHeaders, TableRegion } from '../../components/table-region';

type Broadcast = components['schemas']['Broadcast'];
type Stats = components['schemas']['BroadcastStats'];

const rate = (part: number, whole: number) => (whole === 0 ? '—' : `${((part / whole) * 100).toFixed(1)} %`);

/** How far it got: a progress bar of recipients done (sent, failed, skipped or cancelled) of the audience. */
export function Progress({ broadcast }: { broadcast: Broadcast }) {
  const { done, total } = broadcast.progress;
  return (
    <section className="card stack" aria-labelledby="progress-heading">
      <h2 id="progress-heading">Progress</h2>
      {broadcast.audienceSize === null ? (
        <p className="muted">
          {broadcast.status === 'scheduled' ? 'The audience is fixed when sending starts.' : 'Not started: the audience is fixed when sending starts.'}
        </p>
      ) : (
        <>
          <progress className="progress" aria-labelledby="progress-heading" max={Math.max(total, 1)} value={done} />
          <p data-testid="broadcast-progress">
            {formatNumber(done)} of {formatNumber(total)} recipients done ({rate(done, total)})
          </p>
        </>
      )}
    </section>
  );
}

function Figure({ label, value, detail }: { label: string; value: number; detail?: string | undefined }) {
  return (
    <div className="stat">
      <div className="stat-value">{formatNumber(value)}</div>
      <div className="stat-label">
        {label}
        {detail === undefined ? null : <span className="muted"> · {detail}</span>}
      </div>
    </div>
  );
}

/** What the sends became: delivered, opened and clicked by people (machines apart), bounces, and why some got nothing. */
export function StatsPanel({ stats }: { stats: Stats }) {
  const skipped = Object.values(stats.skipped).reduce((sum, value) => sum + value, 0);
  const reasons: [string, number][] = [
    ['unsubscribed', stats.skipped.unsubscribed],
    ['suppressed', stats.skipped.suppressed],
    ['no email', stats.skipped.noEmail],
    ['missing data', stats.skipped.missingData],
    ['frequency cap', stats.skipped.frequencyCap],
    ['held out', stats.skipped.holdout],
  ];
  return (
    <section className="card stack" aria-labelledby="stats-heading">
      <h2 id="stats-heading">Results</h2>
      <div className="grid" style={{ gridTemplateColumns: 'repeat(auto-fit, minmax(140px, 1fr))' }} data-testid="broadcast-stats">
        <Figure label="sent" value={stats.sent} />
        <Figure label="delivered" value={stats.delivered} detail={rate(stats.delivered, stats.sent)} />
        <Figure
          label="opened by people"
          value={stats.opens.human}
          detail={`${rate(stats.opens.human, stats.sent)}; machines ${formatNumber(stats.opens.machine)}`}
        />
        <Figure
          label="clicked by people"
          value={stats.clicks.human}
          detail={`${rate(stats.clicks.human, stats.sent)}; machines ${formatNumber(stats.clicks.machine)}`}
        />
        <Figure label="bounced" value={stats.bounced} />
        <Figure label="complained" value={stats.complained} />
        <Figure label="unsubscribed since" value={stats.unsubscribed} />
        <Figure label="failed (in the DLQ)" value={stats.failed} />
        <Figure label="skipped" value={skipped} />
      </div>
      {skipped === 0 ? null : (
        <ul aria-label="Skipped by reason" className="muted">
          {reasons
            .filter(([, value]) => value > 0)
            .map(([reason, value]) => (
              <li key={reason}>
                {reason}: {formatNumber(value)}
              </li>
            ))}
        </ul>
      )}
    </section>
  );
}

/**
 * Did the broadcast change what people do: its goal's conversions per arm, the lift over the
 * holdout in words and each arm's conversion over time, as a journey's outcomes panel says them
 * (docs/broadcasts.md, "Goals and holdouts").
 */
export function GoalPanel({ broadcast }: { broadcast: Broadcast }) {
  const result = broadcast.stats.goal;
  if (result === null) return null;
  return (
    <section className="card stack" aria-labelledby="goal-heading">
      <h2 id="goal-heading">Goal</h2>
      <p className="muted">
        Goal: <code>{result.goal.event}</code> within {result.goal.within} of each person’s email
        {broadcast.holdoutPercent === 0 ? '.' : `; ${broadcast.holdoutPercent} % of the audience held out, measured from when theirs would have gone.`}
      </p>
      <GoalResult arms={result.arms} lift={result.lift} hasGoal of="broadcast" testId="broadcast-lift" />
      <OutcomesChart daily={result.daily} of="broadcast" />
    </section>
  );
}

/** Each variant's sends and rates; the winner of an A/B test marked. */
export function VariantResults({ broadcast }: { broadcast: Broadcast }) {
  const variants = broadcast.variants ?? [];
  if (variants.length === 0) return null;
  const metric = broadcast.abTest?.metric;
  return (
    <section className="card stack" aria-labelledby="variants-heading">
      <h2 id="variants-heading">Variants</h2>
      {broadcast.abTest === null ? (
        <p className="muted">Split evenly over the whole audience.</p>
      ) : (
        <p className="muted">
          Tested on {Math.round(broadcast.abTest.testFraction * 100)} % of the audience; the best {metric === 'human_opens' ? 'open' : 'click'} rate (people)
          {broadcast.abTest.waitMinutes} minutes after the test wins and goes to the rest.{' '}
          {broadcast.winnerVariantId === null ? 'No winner yet.' : `Winner: ${broadcast.winnerVariantId}.`}
        </p>
      )}
      <TableRegion label="Variant results">
        <ColumnHeaders names={['Variant', 'Subject', 'Sent', 'Opened (people)', 'Clicked (people)']} />
        <tbody>
          {variants.map((variant) => (
            <tr key={variant.id}>
              <Cell label="Variant">
                {variant.id}
                {variant.winner ? (
                  <span className="badge ok" style={{ marginLeft: 6 }}>
                    <Trophy size={12} aria-hidden /> winner
                  </span>
                ) : null}
              </Cell>
              <Cell label="Subject">{variant.subject ?? broadcast.subject ?? '(the template’s)'}</Cell>
              <Cell label="Sent">{formatNumber(variant.stats.sent)}</Cell>
              <Cell label="Opened (people)">
                {formatNumber(variant.stats.opens.human)} ({rate(variant.stats.opens.human, variant.stats.sent)})
              </Cell>
              <Cell label="Clicked (people)">
                {formatNumber(variant.stats.clicks.human)} ({rate(variant.stats.clicks.human, variant.stats.sent)})
              </Cell>
            </tr>
          ))}
        </tbody>
      </TableRegion>
    </section>
  );
}
