import { formatNumber } from '../../components/format';
import { formatRate } from '../../components/lift-words';
import { cumulativeSeries, rateAxisTop, type CumulativePoint, type DailyOutcome } from './outcomes-series';

const WIDTH = 640;
const HEIGHT = 220;
const MARGIN = { top: 12, right: 16, bottom: 28, left: 48 };
const DAY_MS = 86_400_000;

type ArmKey = 'treatment' | 'holdout';
const ARMS: { key: ArmKey; label: string; stroke: string; dash?: string }[] = [
  { key: 'treatment', label: 'With the emails', stroke: 'var(--accent)' },
  { key: 'holdout', label: 'Held out', stroke: 'var(--muted)', dash: '6 4' },
];

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
 * Each arm's conversion rate over time (docs/journeys.md, "Goals, holdouts and lift"): the
 * cumulative rate of everyone who entered up to each day, as an SVG line per arm, with the same
 * numbers in a table for a screen reader and for anyone who wants the figures.
 */
export function OutcomesChart({ daily }: { daily: readonly DailyOutcome[] }) {
  const points = cumulativeSeries(daily);
  if (points.length === 0) return null;
  const first = Date.parse(points[0]!.day);
  const span = Math.max(1, (Date.parse(points[points.length - 1]!.day) - first) / DAY_MS);
  const top = rateAxisTop(points);
  const x = (day: string) => MARGIN.left + ((Date.parse(day) - first) / DAY_MS / span) * (WIDTH - MARGIN.left - MARGIN.right);
  const y = (rate: number) => HEIGHT - MARGIN.bottom - (rate / top) * (HEIGHT - MARGIN.top - MARGIN.bottom);
  const arms = ARMS.filter((arm) => arm.key === 'treatment' || points.some((point) => point.holdout !== null));
  const last = points[points.length - 1]!;
  const summary = `Cumulative conversion rate by day of entry, ${points[0]!.day} to ${last.day}: ${arms
    .map((arm) => `${arm.label.toLowerCase()} ${rateText(last[arm.key]?.rate ?? null)}`)
    .join(', ')}. The table below has every day’s numbers.`;
  const ticks = [0, top / 2, top];
  return (
    <figure className="stack" style={{ margin: 0 }}>
      <figcaption>
        <strong>Conversion over time</strong> <span className="muted">(everyone who entered up to each day; a gap that stays open is the emails’ lift)</span>
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
      <table aria-label="Conversion by day of entry">
        <thead>
          <tr>
            <th scope="col">Day of entry</th>
            {arms.map((arm) => (
              <th key={arm.key} scope="col">
                {arm.label}: entered, converted, rate so far
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {points.map((point, index) => (
            <tr key={point.day}>
              <th scope="row">{point.day}</th>
              {arms.map((arm) => {
                const day = daily[index]![arm.key];
                return (
                  <td key={arm.key}>
                    {formatNumber(day?.enrolled ?? 0)}, {formatNumber(day?.converted ?? 0)}, {rateText(point[arm.key]?.rate ?? null)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
