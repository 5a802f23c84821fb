import { defineSignal } from '@temporalio/workflow';
import type { JourneyEventSignal } from '@waymark/core/journeys/orchestrator';

/** Delivers one of the user's events to a run that waits for it (ctx.waitForEvent). */
export const journeyEventSignal = defineSignal<[JourneyEventSignal]>('journeyEvent');
