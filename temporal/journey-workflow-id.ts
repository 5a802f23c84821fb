import type { JourneyRunRequest } from '@waymark/core/journeys/orchestrator';

/**
 * One run per (journey, user, trigger event). The id reads well in the Temporal Web UI
 * (`journey:trial-conversion:user-42:<eventId>`); re-delivering the same event reuses the run.
 *
 * Its own module (not the orchestrator's) so the journey test kit names runs the same way without
 * loading the Temporal client.
 */
export function journeyWorkflowId(request: Pick<JourneyRunRequest, 'journeyId' | 'userId' | 'trigger'>): string {
  return `journey:${request.journeyId}:${request.userId}:${request.trigger.eventId}`;
}
