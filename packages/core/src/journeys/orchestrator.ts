/**
 * The orchestrator PORT: what core needs from the workflow engine. Implemented in temporal/
 * (core never imports Temporal); tests may pass a fake.
 */

/** What a run receives of the trigger's properties: JSON primitives only. */
export type PrimitiveProperties = Record<string, string | number | boolean | null>;

/** One enrollment request: the input of one journey run. */
export interface JourneyRunRequest {
  journeyId: string;
  userId: string;
  /** may be '' when the event carried only a userId; the run resolves it from the contact */
  userEmail: string;
  properties: PrimitiveProperties;
  trigger: { event: string; eventId: string; occurredAt: string };
  /** the journey's version in the starter's code; the orchestrator fills it in when absent */
  journeyVersion?: string;
}

/** An event delivered to a run that waits for it. */
export interface JourneyEventSignal {
  eventId: string;
  name: string;
  occurredAt: string;
  properties: PrimitiveProperties;
}

export interface StartedRun {
  workflowId: string;
  runId: string;
}

export interface JourneyOrchestrator {
  /**
   * Starts one run; starting the same (journey, user, trigger event) twice starts it once. Throws an
   * `unavailable` AppError when the engine could not be reached or timed out (the start may succeed
   * later unchanged: events/event-effects.ts), any other error when it refused the start.
   */
  startJourney(request: JourneyRunRequest): Promise<StartedRun>;
  /**
   * Delivers an event to a waiting run; a run that already finished is ignored, and so is an event
   * id the run has already received. Throws an `unavailable` AppError as startJourney does.
   */
  signalEvent(workflowId: string, event: JourneyEventSignal): Promise<void>;
  /**
   * Requests cancellation; false when the run had already finished. Throws an `unavailable`
   * AppError when the engine could not be reached or timed out.
   */
  cancelRun(workflowId: string): Promise<boolean>;
  /**
   * Removes a run and its history from the engine (a live one is stopped first), for an erasure;
   * false when the engine holds no such run (deleted already, or past its retention). Throws an
   * `unavailable` AppError as cancelRun does.
   */
  deleteRun(workflowId: string): Promise<boolean>;
  /** Where a live run is (its pending timer or wait); undefined when it has ended or cannot be asked. */
  runProgress?(workflowId: string): Promise<RunProgress | undefined>;
}

/** A live run's position, as the engine reports it (explain). */
export interface RunProgress {
  phase: 'running' | 'waiting';
  nodeId: string;
  waitingFor?: string;
  until?: string;
}

export function primitiveProperties(properties: Record<string, unknown> | undefined): PrimitiveProperties {
  const result: PrimitiveProperties = {};
  for (const [key, value] of Object.entries(properties ?? {})) {
    if (value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
      result[key] = value;
    }
  }
  return result;
}
