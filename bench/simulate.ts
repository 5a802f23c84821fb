import { parseArgs } from 'node:util';
import { startJourneyTestServer, stopJourneyTestServer } from '@waymark/journey-testing';
import { simulateJourney } from '@waymark/temporal/simulation/simulate';
import trialConversion from '@waymark/journeys/trial-conversion';
import { ratioRow, writeBenchResults } from './lib/results';
import { SIMULATION_UNTIL, trialSubjects } from './lib/simulate-subjects';
import { simulateOnTemporal } from './lib/simulate-on-temporal';

/**
 * `npm run bench -- simulate` (or `npm run bench:simulate -- --full`): how fast `waymark simulate`
 * replays enrollments. Goal: 10,000 in under 60 s, i.e. ≥ 167 enrollments/s. Quick by default
 * (2,000 enrollments); `--full` or SIMULATE_BENCH_USERS=10000 runs the whole target. Same-run
 * baseline: the same histories driven one after another on the Temporal time-skipping test server
 * (the previous design; SIMULATE_BENCH_TEMPORAL_USERS, default 20).
 */
const { values } = parseArgs({ options: { full: { type: 'boolean', default: false } } });
const users = values.full ? 10_000 : Number(process.env.SIMULATE_BENCH_USERS ?? 2_000);
const temporalUsers = Number(process.env.SIMULATE_BENCH_TEMPORAL_USERS ?? 20);
const GOAL = 10_000 / 60;

const report = await simulateJourney(trialConversion, trialSubjects(users), { until: SIMULATION_UNTIL });
console.log(`[simulate] ${users} enrollments: ${report.rate} enrollments/s`, report.statuses, report.sentByTemplate);

await startJourneyTestServer();
let temporalRate: number;
try {
  temporalRate = await simulateOnTemporal(trialConversion, trialSubjects(temporalUsers), SIMULATION_UNTIL);
} finally {
  await stopJourneyTestServer();
}
console.log(`[simulate] Temporal test server, ${temporalUsers} enrollments one after another: ${temporalRate.toFixed(1)} enrollments/s`);

writeBenchResults('simulate', [
  ratioRow(
    `simulate trial-conversion, ${users} enrollments on one virtual timeline (baseline: the goal, 10,000 in 60 s)`,
    'enrollments/s',
    report.rate,
    GOAL,
    1,
  ),
  ratioRow(`simulate vs the Temporal test server (${temporalUsers} enrollments one after another)`, 'enrollments/s', report.rate, temporalRate, 1),
]);
