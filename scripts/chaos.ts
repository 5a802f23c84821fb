/**
 * npm run chaos -- --minutes N: mixed load while the api, the worker, Redis, PostgreSQL and the
 * Temporal server are SIGKILLed and restarted, on instances of the run's own; then the report,
 * and its goals as rows in bench/results/chaos.json (collected into latest.json like a benchmark):
 * 0 acknowledged events lost, 0 emails lost, 0 duplicates at SES, 0 DLQ entries, 0 differences
 * from the fault-free run of the same events (each person's emails and journey outcome), every
 * acknowledged sign-up's journey started exactly once, convergence ≤ 60 s after the last restart.
 * Exits 1 when a goal is missed. See docs/scaling.md (chaos run).
 */
import { parseArgs } from 'node:util';
import { limitRow, writeBenchResults } from '../bench/lib/results';
import { formatReport, runChaos } from './chaos/run-chaos';

const CONVERGE_GOAL_SECONDS = 60;
const WAIT_SECONDS = 600;

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '10' }, 'base-port': { type: 'string', default: '7600' }, rate: { type: 'string', default: '4' } },
});

const minutes = Number(values.minutes);
const report = await runChaos({ minutes, basePort: Number(values['base-port']), rate: Number(values.rate), convergeSeconds: WAIT_SECONDS });
console.log(formatReport(report));
const run = `chaos ${minutes} min`;
const rows = [
  limitRow(`${run}: acknowledged events lost (${report.eventsAcked} acked)`, 'count', report.eventsLost, 0),
  limitRow(`${run}: emails lost (${report.emailsExpected} in the fault-free run)`, 'count', report.emailsLost, 0),
  limitRow(`${run}: duplicates at SES`, 'count', report.duplicateSends, 0),
  // a start that met a Temporal kill is kept and made by the worker's relay; an unknown send settles from SES's events
  limitRow(`${run}: DLQ entries`, 'count', report.dlqEntries, 0),
  limitRow(`${run}: differences from the fault-free run (${report.peopleCompared} compared)`, 'count', report.differences.length, 0),
  limitRow(`${run}: acked sign-ups whose journey did not start exactly once`, 'count', report.enrollmentsExpected - report.enrollmentsStartedOnce, 0),
  // not converged within the wait: the wait itself is the (failing) figure
  limitRow(
    `${run}: ${report.convergedSeconds === null ? `NOT converged within ${WAIT_SECONDS} s` : 'converged'} after the last restart`,
    's',
    report.convergedSeconds ?? WAIT_SECONDS,
    CONVERGE_GOAL_SECONDS,
  ),
];
writeBenchResults('chaos', rows);
if (rows.some((row) => !row.pass)) process.exitCode = 1;
