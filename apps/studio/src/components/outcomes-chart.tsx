import { formatNumber } from './format';
import { formatRate } from './lift-words';
import { Cell, ColumnHeaders, TableRegion } from './table-region';
import { cumulativeSeries, rateAxisTop, type CumulativePoint, type DailyOutcome } from './outcomes-series';

const WIDTH = 640;
const HEIGHT = 220;
const MARGIN = { top: 12, right: 16, bottom: 28, left: 48 };
const DAY_MS = 86_400_000;

type ArmKey = 'treatment' | 'holdout';
type Of = 'journey' | 'broadcast';
const ARMS: { key: ArmKey; label: Record<Of, string>; stroke: string; dash?: string }[] = [
  { key: 'treatment', label: { journey: 'With the emails', broadcast: 'With the email' }, stroke: 'var(--accent)' },
  { key: 'holdout', label: { journey: 'Held out', broadcast: 'Held out' }, stroke: 'var(--muted)', dash: '6 4' },
];

/**
 * What a day is in each: a journey counts people by the day they entered, conversions with them; a
 * broadcast counts recipients exposed and conversions each on the day it happened (its audience is
 * exposed nearly at once, so the chart shows the rates climbing through the goal's window).
 */
const WORDS: Record<Of, { by: string; who: string; day: string; counts: string; lift: string }> = {
  journey: {
    by: 'by day of entry',
    who: 'everyone who entered up to each day',
    day: 'Day of entry',
    counts: 'entered, converted, rate so far',
    lift: 'the emails’ lift',
  },
  broadcast: {
    by: 'by day',
    who: 'everyone whose turn had come by each day and, of them, who had converted by then',
    day: 'Day',
    counts: 'exposed, converted, rate so far',
    lift: 'the email’s lift',
  },
};

const rateText = (rate: number | null) => (rate === null ? '–' : formatRate(rate));

/** The path of one arm's cumulative rate, skipping days before anyone of the arm had entered. */
function armPath(points: readonly CumulativePoint[], arm: ArmKey, x: (day: string) => number, y: (rate: number) => number): string {
  const drawn = points.flatMap((point) => {
    const rate = point[arm]?.rate ?? null;
    return rate === null ? [] : [`${x(point.day).toFixed(1)},${y(rate).toFixed(1)}`];
  });
  return drawn.length === 0 ? '' : `M${drawn.join('L')}`;
}

/**
 * Each arm's conversion rate over time, a journey's outcomes' or a broadcast goal's `daily`
 * (docs/journeys.md, "Goals, holdouts and lift"; docs/broadcasts.md, "Goals and holdouts"): the
 * cumulative rate up to each day, as an SVG line per arm, with the same numbers in a table for a
 * screen reader and for anyone who wants the figures.
 */
export function OutcomesChart({ daily, of }: { daily: readonly DailyOutcome[]; of: Of }) {
  const points = cumulativeSeries(daily);
  if (points.length === 0) return null;
  const first = Date.parse(points[0]!.day);
  const span = Math.max(1, (Date.parse(points[points.length - 1]!.day) - first) / DAY_MS);
  const top = rateAxisTop(points);
  const x = (day: string) => MARGIN.left + ((Date.parse(day) - first) / DAY_MS / span) * (WIDTH - MARGIN.left - MARGIN.right);
  const y = (rate: number) => HEIGHT - MARGIN.bottom - (rate / top) * (HEIGHT - MARGIN.top - MARGIN.bottom);
  const words = WORDS[of];
  const arms = ARMS.filter((arm) => arm.key === 'treatment' || points.some((point) => point.holdout !== null)).map((arm) => ({ ...arm, label: arm.label[of] }));
  const last = points[points.length - 1]!;
  const summary = `Cumulative conversion rate ${words.by}, ${points[0]!.day} to ${last.day}: ${arms
    .map((arm) => `${arm.label.toLowerCase()} ${rateText(last[arm.key]?.rate ?? null)}`)
    .join(', ')}. The table below has every day’s numbers.`;
  const ticks = [0, top / 2, top];
  return (
    <figure className="stack" style={{ margin: 0 }}>
      <figcaption>
        <strong>Conversion over time</strong>{' '}
        <span className="muted">
          ({words.who}; a gap that stays open is {words.lift})
        </span>
      </figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={summary}
        data-testid="outcomes-chart"
        style={{ width: '100%', maxWidth: WIDTH, height: 'auto' }}
      >
        {ticks.map((tick) => (
          <g key={tick}>
            <line x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={y(tick)} y2={y(tick)} stroke="var(--border)" />
            <text x={MARGIN.left - 6} y={y(tick) + 4} textAnchor="end" fontSize="11" fill="var(--text)">
              {formatRate(tick)}
            </text>
          </g>
        ))}
        <text x={MARGIN.left} y={HEIGHT - 8} fontSize="11" fill="var(--text)">
          {points[0]!.day}
        </text>
        {points.length > 1 ? (
          <text x={WIDTH - MARGIN.right} y={HEIGHT - 8} textAnchor="end" fontSize="11" fill="var(--text)">
            {last.day}
          </text>
        ) : null}
        {arms.map((arm) => (
          <g key={arm.key}>
            <path d={armPath(points, arm.key, x, y)} fill="none" stroke={arm.stroke} strokeWidth="2" strokeDasharray={arm.dash} data-arm={arm.key} />
            {points.map((point) => {
              const rate = point[arm.key]?.rate ?? null;
              return rate === null ? null : <circle key={point.day} cx={x(point.day)} cy={y(rate)} r="3" fill={arm.stroke} />;
            })}
          </g>
        ))}
      </svg>
      <p className="muted" aria-hidden="true">
        {arms.map((arm) => (
          <span key={arm.key} style={{ marginRight: '1rem' }}>
            <svg width="24" height="8" style={{ verticalAlign: 'middle', marginRight: 4 }}>
              <line x1="0" x2="24" y1="4" y2="4" stroke={arm.stroke} strokeWidth="2" strokeDasharray={arm.dash} />
            </svg>
            {arm.label}
          </span>
        ))}
      </p>
      <TableRegion label={`Conversion ${words.by}`}>
        <ColumnHeaders names={[words.day, ...arms.map((arm) => `${arm.label}: ${words.counts}`)]} />
        <tbody>
          {points.map((point, index) => (
            <tr key={point.day}>
              <th scope="row">{point.day}</th>
              {arms.map((arm) => {
                const day = daily[index]![arm.key];
                return (
                  <Cell key={arm.key} label={`${arm.label}: ${words.counts}`}>
                    {formatNumber(day?.enrolled ?? 0)}, {formatNumber(day?.converted ?? 0)}, {rateText(point[arm.key]?.rate ?? null)}
                  </Cell>
                );
              })}
            </tr>
          ))}
        </tbody>
      </TableRegion>
    </figure>
  );
}
