import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { simulateJourney, startJourneyTestServer, stopJourneyTestServer, type SimulationInput } from '@waymark/journey/testing';
import trialConversion from '@waymark/journeys/trial-conversion';

/**
 * `npm run bench:simulate`: how fast `waymark simulate` replays enrollments (goal: 10,000 in under
 * 60 s, i.e. ≥ 167 enrollments/s). Baseline, same run and same time-skipping server: bare runs
 * that end at once (a trigger failing trigger.where: one workflow, no activity), the floor of the
 * machinery. SIMULATE_BENCH_USERS sets the sample (default 300).
 */
const USERS = Number(process.env.SIMULATE_BENCH_USERS ?? 300);
const DAY = 86_400_000;
const GOAL = 10_000 / 60;

function subjects(count: number, plan: (i: number) => string): SimulationInput[] {
  const start = Date.UTC(2026, 10, 1);
  return Array.from({ length: count }, (_, i) => {
    const at = new Date(start + (i % 19) * DAY);
    const later =
      i % 3 === 0
        ? [{ name: 'subscription.started', at: new Date(at.getTime() + DAY), properties: {} }]
        : i % 3 === 1
          ? [{ name: 'pricing.viewed', at: new Date(at.getTime() + 4 * DAY), properties: {} }]
          : [];
    return { userId: `bench-${i}`, email: `bench-${i}@example.com`, trigger: { at, properties: { plan: plan(i) } }, later };
  });
}

await startJourneyTestServer();
try {
  const until = new Date(Date.UTC(2026, 11, 1));
  const baseline = await simulateJourney(
    trialConversion,
    subjects(USERS, () => 'free'),
    { until },
  );
  const measured = await simulateJourney(
    trialConversion,
    subjects(USERS, (i) => (i % 2 === 0 ? 'pro' : 'team')),
    { until },
  );
  const rows = [
    {
      name: `simulate trial-conversion (${USERS} enrollments: exits, follow-ups, last chances)`,
      unit: 'enrollments/s',
      value: measured.rate,
      baseline: baseline.rate,
      ratio: Math.round((measured.rate / baseline.rate) * 100) / 100,
      goal: Math.round(GOAL),
      pass: measured.rate >= GOAL,
    },
  ];
  const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'simulate.json'), `${JSON.stringify(rows, null, 2)}\n`);
  for (const row of rows) {
    console.log(
      `  ${row.name}: ${row.value} ${row.unit} (bare runs ${row.baseline} ${row.unit}, ratio ${row.ratio}; goal ≥ ${row.goal}: ${row.pass ? 'pass' : 'FAIL'})`,
    );
  }
} finally {
  await stopJourneyTestServer();
}
