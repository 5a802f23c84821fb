import { durationMs, type Journey } from '@waymark/journey';
import { simulateJourney, type SimulationReport } from '@waymark/journey/testing';
import type { Db } from '@waymark/core/db/database';
import { countSentByTemplate, loadSimulationSubjects } from '@waymark/core/journeys/simulation-history';

export interface SimulationResult {
  journeyId: string;
  window: { since: string; until: string };
  report: SimulationReport;
  /** what the live journey actually sent in the window, per template */
  actual: Record<string, number>;
}

/**
 * Dry-runs the journey's current code over the real history of [now - since, now): reads the
 * database, writes nothing, sends nothing (the journey test kit's in-memory calls answer every step).
 */
export async function runSimulation(
  db: Db,
  input: { journey: Journey; since: string; limit: number; now?: Date; onProgress?: (done: number, total: number) => void },
): Promise<SimulationResult> {
  const until = input.now ?? new Date();
  const since = new Date(until.getTime() - durationMs(input.since));
  const subjects = await loadSimulationSubjects(db, { journey: input.journey, since, until, limit: input.limit });
  const report = await simulateJourney(input.journey, subjects, { until, ...(input.onProgress === undefined ? {} : { onProgress: input.onProgress }) });
  const actual = await countSentByTemplate(db, { journeyId: input.journey.id, since, until });
  return { journeyId: input.journey.id, window: { since: since.toISOString(), until: until.toISOString() }, report, actual };
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
  for (const [outcome, userIds] of Object.entries(report.samples)) lines.push(`  e.g. ${outcome}: ${userIds.join(', ')}`);
  return lines.join('\n');
}
