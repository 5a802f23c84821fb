import { isGrpcServiceError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { Db } from '@waymark/core/db/database';
import { journeysWithLiveRuns, liveRunsOtherThan, type LiveRun } from '@waymark/core/journeys/running-versions';
import { journeyVersions } from '../journey-versions';
import { workingTreeWorkflowBundle } from './working-tree-bundle';

/** One live run whose history does not replay on the working tree's code. */
export interface IncompatibleRun {
  userId: string;
  workflowId: string;
  runId: string;
  version: string | null;
  /** where the run is (journey_states.current_node_id) */
  nodeId: string;
  /** the first diverging command, as the SDK's replayer words it */
  divergence: string;
}

export interface JourneyVersionCheck {
  /** null: runs started before versions were recorded */
  version: string | null;
  replayed: number;
  incompatible: number;
  /** live in the database, but Temporal no longer has the history (retention, another cluster): not replayed */
  missing: number;
}

export interface JourneyCheck {
  journeyId: string;
  /** the working tree's version; null when the working tree no longer has this journey */
  workingVersion: string | null;
  versions: JourneyVersionCheck[];
  incompatibleRuns: IncompatibleRun[];
  /** workflow ids of the live runs whose history Temporal no longer has */
  missingRuns: string[];
  /** how to keep the incompatible runs, when there are any */
  fix?: string;
}

export interface JourneyCheckReport {
  journeysDir: string;
  replayed: number;
  incompatible: number;
  missing: number;
  journeys: JourneyCheck[];
}

export interface JourneyCheckOptions {
  /** the working tree's journeys/ (its modules and templates are hashed and bundled) */
  journeysDir: string;
  /** replay at most this many runs per (journey, version); all when absent */
  sample?: number;
  /** only this journey */
  journeyId?: string;
}

/** Histories fetched ahead of the replayer, so Temporal's answers overlap with replaying. */
const FETCH_AHEAD = 8;

/**
 * `waymark journeys check`: for each journey with live runs whose version differs from the working
 * tree's, replays those runs' histories against the working tree's workflow bundle with the SDK's
 * history replayer. A run whose replay fails would be stuck after the deploy (non-determinism).
 */
export async function checkJourneys(deps: { db: Db; client: Client }, options: JourneyCheckOptions): Promise<JourneyCheckReport> {
  const journeyIds = options.journeyId === undefined ? await journeysWithLiveRuns(deps.db) : [options.journeyId];
  const plans: { journeyId: string; workingVersion: string | null; runs: LiveRun[] }[] = [];
  for (const journeyId of journeyIds) {
    const workingVersion = workingVersionOf(journeyId, options.journeysDir);
    const runs = await liveRunsOtherThan(deps.db, journeyId, workingVersion, options.sample);
    if (runs.length > 0) plans.push({ journeyId, workingVersion, runs });
  }
  const allRuns = plans.flatMap((plan) => plan.runs);
  const { failures, missing } =
    allRuns.length === 0 ? { failures: new Map<string, string>(), missing: new Set<string>() } : await replayRuns(deps.client, allRuns, options.journeysDir);

  const journeys = plans.map(({ journeyId, workingVersion, runs }): JourneyCheck => {
    const versions = new Map<string | null, JourneyVersionCheck>();
    const incompatibleRuns: IncompatibleRun[] = [];
    const missingRuns: string[] = [];
    for (const run of runs) {
      const entry = versions.get(run.version) ?? { version: run.version, replayed: 0, incompatible: 0, missing: 0 };
      versions.set(run.version, entry);
      if (missing.has(runKey(run))) {
        entry.missing += 1;
        missingRuns.push(run.workflowId);
        continue;
      }
      entry.replayed += 1;
      const divergence = failures.get(runKey(run));
      if (divergence !== undefined) {
        entry.incompatible += 1;
        incompatibleRuns.push({ userId: run.userId, workflowId: run.workflowId, runId: run.runId, version: run.version, nodeId: run.nodeId, divergence });
      }
    }
    return {
      journeyId,
      workingVersion,
      versions: [...versions.values()],
      incompatibleRuns,
      missingRuns,
      ...(incompatibleRuns.length === 0 ? {} : { fix: fixFor(journeyId, workingVersion) }),
    };
  });
  return {
    journeysDir: options.journeysDir,
    replayed: allRuns.length - missing.size,
    incompatible: journeys.reduce((sum, journey) => sum + journey.incompatibleRuns.length, 0),
    missing: missing.size,
    journeys,
  };
}

function workingVersionOf(journeyId: string, journeysDir: string): string | null {
  try {
    return journeyVersions([journeyId], journeysDir).get(journeyId) ?? null;
  } catch {
    return null; // the working tree no longer has the journey's module: every live run is replayed
  }
}

function fixFor(journeyId: string, workingVersion: string | null): string {
  if (workingVersion === null) return `the working tree removed '${journeyId}': keep its module until its runs have drained (or cancel them)`;
  return (
    `keep the runs' recorded path: put the change behind a patch marker (\`if (patched('${journeyId}-<change>')) { …new steps… }\`, ` +
    `import { patched } from '@temporalio/workflow'), or ship the new code under a new journey id and let '${journeyId}' drain ` +
    `(docs/journeys.md, "Changing a live journey")`
  );
}

/** a run's workflow id is its own (one per enrollment); the replayer reports the workflow id it was given */
const runKey = (run: { workflowId: string }) => run.workflowId;

/**
 * The replay's failure of each run that did not replay (by workflow id), and the runs whose
 * history Temporal no longer has: a database row can outlive its history (namespace retention, a
 * run started on another cluster), and one such run must not stop the check of the others.
 */
async function replayRuns(client: Client, runs: readonly LiveRun[], journeysDir: string): Promise<{ failures: Map<string, string>; missing: Set<string> }> {
  const workflowBundle = await workingTreeWorkflowBundle(journeysDir);
  const failures = new Map<string, string>();
  const missing = new Set<string>();
  const results = Worker.runReplayHistories({ workflowBundle, replayName: `journeys-check-${process.pid}` }, fetchHistories(client, runs, missing));
  for await (const result of results) {
    if (result.error !== undefined) failures.set(runKey(result), divergenceOf(result.error.message));
  }
  return { failures, missing };
}

const isNotFound = (error: unknown) => error instanceof WorkflowNotFoundError || (isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND);
const GRPC_NOT_FOUND = 5;

async function* fetchHistories(client: Client, runs: readonly LiveRun[], missing: Set<string>) {
  const fetch = (run: LiveRun) => {
    const fetched = client.workflow
      .getHandle(run.workflowId, run.runId === '' ? undefined : run.runId)
      .fetchHistory()
      .then(
        (history) => ({ workflowId: run.workflowId, history }),
        (error: unknown) => {
          if (!isNotFound(error)) throw error;
          missing.add(runKey(run));
          return undefined;
        },
      );
    // a failure surfaces when its turn comes (the await below), not as an unhandled rejection before
    fetched.catch(() => undefined);
    return fetched;
  };
  const pending = runs.slice(0, FETCH_AHEAD).map(fetch);
  for (let next = FETCH_AHEAD; pending.length > 0; next += 1) {
    const history = await pending.shift();
    const run = runs[next];
    if (run !== undefined) pending.push(fetch(run));
    if (history !== undefined) yield history;
  }
}

/**
 * The replayer wraps the core's failure in a debug dump ("… Failure { message: \"[TMPRL1100]
 * Nondeterminism error: Activity type of recorded marker 'recordJourneyStep' does not match
 * activity type of local activity command 'sendJourneyEmail'\" …"); its inner message is the
 * first diverging command. Anything else (an unknown journey, a thrown error) is kept whole.
 */
function divergenceOf(message: string): string {
  return /message: "([^"]+)"/.exec(message)?.[1] ?? message.split('\n')[0] ?? message;
}
