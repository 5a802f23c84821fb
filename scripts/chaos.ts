/**
 * npm run chaos -- --minutes N: mixed load while the api, the worker, Redis, PostgreSQL and the
 * Temporal server are SIGKILLed and restarted, on instances of the run's own; then the report.
 * Exits 1 when an acknowledged event or an email was lost. See docs/scaling.md (chaos run).
 */
import { parseArgs } from 'node:util';
import { formatReport, runChaos } from './chaos/run-chaos';

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '10' }, 'base-port': { type: 'string', default: '7600' }, rate: { type: 'string', default: '4' } },
});

const report = await runChaos({ minutes: Number(values.minutes), basePort: Number(values['base-port']), rate: Number(values.rate) });
console.log(formatReport(report));
if (report.eventsLost > 0 || report.emailsLost > 0 || report.convergedSeconds === null) process.exitCode = 1;
