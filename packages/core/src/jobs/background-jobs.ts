/**
 * The background-job PORT: what core needs from the workflow engine to run a long job outside a
 * request (a contact import, an event replay, a journey simulation, the dispatch of a batch
 * enrollment). Implemented once in temporal/background-jobs.ts, driven by a table of kinds; the
 * journey orchestrator (journeys/orchestrator.ts) stays a port of its own, since a journey run is
 * signalled and routed to, not just started. docs/contributing.md, "Adding a background job kind".
 */

/** Each kind is one workflow (the table in temporal/background-jobs.ts maps the kind to it). */
export type BackgroundJobKind = 'contact-import' | 'event-replay' | 'journey-simulation' | 'enroll-batch' | 'broadcast';

/** The engine's view of a job's run (its row, if it has one, says what the job did). */
export type BackgroundJobRunStatus = 'running' | 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed_out' | 'not_found';

/** How far a running job is, as its run counts it (rows, events, users). */
export interface BackgroundJobProgress {
  done: number;
  total: number;
}

export interface BackgroundJobs {
  /**
   * Starts the durable run of job `id` of `kind`; one run per (kind, id), a second start is
   * refused. Most kinds read their job row by id and take no `input`; a kind without a row
   * (enroll-batch) gets its work as `input`, handed to its workflow as is (JSON).
   */
  start(kind: BackgroundJobKind, id: string, input?: unknown): Promise<void>;
  status(kind: BackgroundJobKind, id: string): Promise<BackgroundJobRunStatus>;
  /** null when the run does not count its own progress (a simulation's lives in its row) */
  progress(kind: BackgroundJobKind, id: string): Promise<BackgroundJobProgress | null>;
  /** Asks the run to stop; a job with a row records it as failed with 'cancelled'. 404 for an unknown job. */
  cancel(kind: BackgroundJobKind, id: string): Promise<void>;
  /**
   * Tells a running job that its row changed (a broadcast paused, resumed or cancelled), so it
   * reads the row again now rather than at its next check. A job that is not running is not an error.
   */
  notify(kind: BackgroundJobKind, id: string): Promise<void>;
}
