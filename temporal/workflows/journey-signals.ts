import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { JourneyEventSignal } from '@waymark/core/journeys/orchestrator';

/** Delivers one of the user's events to a run that waits for it (ctx.waitForEvent). */
export const journeyEventSignal = defineSignal<[JourneyEventSignal]>('journeyEvent');

/** Where a run is: `waiting` while it sits in a timer or an event wait, `running` otherwise. */
export interface JourneyProgress {
  phase: 'running' | 'waiting';
  nodeId: string;
  /** the event a `waitForEvent` waits for */
  waitingFor?: string;
  /** when the current timer or wait ends (workflow time, ISO 8601) */
  until?: string;
  /** events delivered to this run by signal so far */
  received: number;
}

/**
 * Answers where a live run is without touching its history (queries are not recorded, so adding
 * this does not change replay): explain reports pending timers from it, and the journey test kit
 * knows from it when a run has settled into a wait.
 */
export const journeyProgressQuery = defineQuery<JourneyProgress>('journeyProgress');
