import { z } from 'zod';
import { parseDuration, type Journey } from '@waymark/journey';
import type { Db } from '../db/database';
import { badRequest } from '../errors/app-error';
import { countSentByTemplate, loadSimulationSubjects, type SimulationSubject } from './simulation-history';

const counts = z.record(z.string(), z.number().int());
const armCounts = z.object({ enrolled: z.number().int(), converted: z.number().int() });

/** What a simulation found: the same report `waymark simulate` prints (docs/journeys.md). */
export const simulationReportSchema = z.object({
  enrollments: z.number().int().describe('triggers that entered the journey'),
  notEntered: counts.describe('triggers that made no entry, by reason (trigger_where, entry_limit, suppressed, …)'),
  statuses: counts.describe('final status of the enrollments at the end of the window (completed, exited, waiting, failed, …)'),
  sentByTemplate: counts.describe('emails the journey would have sent, per template key'),
  byNode: counts.describe('emails the journey would have sent, per node'),
  exits: counts.describe('enrollments ended by an exitOn rule, by the event that matched'),
  samples: z
    .record(z.string(), z.array(z.string()))
    .describe('a few user ids per outcome: sent:<template>, exited:<event>, not_entered:<reason>, status:<status>'),
  rate: z.number().describe('enrollments simulated per second of wall time'),
  frequencyCaps: z
    .object({
      skipped: z.number().int().describe('sends a `skip` frequency cap of the delivery policy would drop'),
      delayed: z.number().int().describe('sends a `delay` frequency cap would hold until its window has room'),
    })
    .optional()
    .describe("what the delivery policy's frequency caps would do to this journey's sends, counting the person's other emails of the window"),
  arms: z
    .object({ treatment: armCounts, holdout: armCounts })
    .optional()
    .describe('for a journey with a goal: enrollments and conversions (the goal event within its window) per arm of its holdout'),
});
export type SimulationReport = z.infer<typeof simulationReportSchema>;

export const simulationResultSchema = z.object({
  journeyId: z.string(),
  window: z.object({ since: z.string(), until: z.string() }),
  report: simulationReportSchema,
  actual: counts.describe('what the live journey actually sent in the same window, per template key'),
});
export type SimulationResult = z.infer<typeof simulationResultSchema>;

/**
 * The engine that replays histories through a journey's current code (the journey kit's
 * `simulateJourney`, passed in by the app: core does not run workflow code).
 */
export type JourneySimulator = (
  journey: Journey,
  subjects: readonly SimulationSubject[],
  options: { until: Date; onProgress?: (done: number, total: number) => void },
) => Promise<SimulationReport>;

export interface SimulationWindow {
  since: Date;
  until: Date;
}

/** `since` as a duration back from `now` ('30d', '2 weeks') or an ISO 8601 date or date-time. */
export function simulationWindow(since: string, now: Date): SimulationWindow {
  const ms = parseDuration(since);
  const start = ms !== undefined ? new Date(now.getTime() - ms) : /^\d{4}-\d{2}-\d{2}/.test(since) ? new Date(since) : undefined;
  if (start === undefined || Number.isNaN(start.getTime())) {
    throw badRequest(`since: expected a duration such as '30d' or an ISO 8601 date, got '${since}'`);
  }
  if (start.getTime() >= now.getTime()) throw badRequest('since: the window must start in the past');
  return { since: start, until: now };
}

/**
 * Dry-runs the journey's current code over the real history of the window: reads the events
 * table, writes nothing, sends nothing; then what the live journey actually sent, to compare.
 */
export async function runSimulation(
  db: Db,
  simulate: JourneySimulator,
  input: { journey: Journey; window: SimulationWindow; limit: number; onProgress?: (done: number, total: number) => void },
): Promise<SimulationResult> {
  const { journey, window } = input;
  const subjects = await loadSimulationSubjects(db, { journey, since: window.since, until: window.until, limit: input.limit });
  input.onProgress?.(0, subjects.length);
  const report = await simulate(journey, subjects, { until: window.until, ...(input.onProgress === undefined ? {} : { onProgress: input.onProgress }) });
  const actual = await countSentByTemplate(db, { journeyId: journey.id, since: window.since, until: window.until });
  return { journeyId: journey.id, window: { since: window.since.toISOString(), until: window.until.toISOString() }, report, actual };
}
