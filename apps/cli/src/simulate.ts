import type { Journey } from '@waymark/journey';
import { simulateJourney } from '@waymark/temporal/simulation/simulate';
import { deploymentDeliveryPolicy } from '@waymark/runtime/runtime';
import type { Db } from '@waymark/core/db/database';
import { runSimulation as simulate, simulationWindow, type SimulationResult } from '@waymark/core/journeys/simulation';

/**
 * Dry-runs the journey's current code over the real history of the window (`since`: a duration
 * back from now or an ISO date): reads the database, writes nothing, sends nothing. The admin
 * API's simulation job runs the same function in the worker.
 */
export function runSimulation(
  db: Db,
  input: {
    journey: Journey;
    since: string;
    limit: number;
    now?: Date;
    onProgress?: (done: number, total: number) => void;
    /** DEFAULT_TIMEZONE (default 'UTC') */
    defaultTimeZone?: string;
  },
): Promise<SimulationResult> {
  const policy = deploymentDeliveryPolicy();
  const options = { policy, defaultTimeZone: input.defaultTimeZone ?? 'UTC' };
  return simulate(db, (journey, subjects, base) => simulateJourney(journey, subjects, { ...base, ...options }), {
    journey: input.journey,
    window: simulationWindow(input.since, input.now ?? new Date()),
    limit: input.limit,
    ...(input.onProgress === undefined ? {} : { onProgress: input.onProgress }),
  });
}

/** The report for a terminal: counts, then simulated vs actually sent per template. */
export function formatSimulation(result: SimulationResult): string {
  const { report } = result;
  const lines = [`Simulated ${result.journeyId} over ${result.window.since} → ${result.window.until}`];
  lines.push(`  enrollments: ${report.enrollments} (${report.rate} enrollments/s)`);
  for (const [reason, count] of Object.entries(report.notEntered)) lines.push(`  not entered (${reason}): ${count}`);
  for (const [status, count] of Object.entries(report.statuses)) lines.push(`  ${status}: ${count}`);
  for (const [event, count] of Object.entries(report.exits)) lines.push(`  exited by ${event}: ${count}`);
  lines.push('  template                      simulated   actually sent');
  const keys = [...new Set([...Object.keys(report.sentByTemplate), ...Object.keys(result.actual)])].sort();
  for (const key of keys)
    lines.push(`  ${key.padEnd(30)}${String(report.sentByTemplate[key] ?? 0).padStart(9)}${String(result.actual[key] ?? 0).padStart(16)}`);
  if (report.frequencyCaps !== undefined)
    lines.push(`  frequency caps (journeys/delivery-policy.ts): ${report.frequencyCaps.skipped} skipped, ${report.frequencyCaps.delayed} delayed`);
  for (const [outcome, userIds] of Object.entries(report.samples)) lines.push(`  e.g. ${outcome}: ${userIds.join(', ')}`);
  return lines.join('\n');
}
