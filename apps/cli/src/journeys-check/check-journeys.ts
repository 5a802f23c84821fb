import { existsSync } from 'node:fs';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { liveRunSubjects, type LiveRunSubject } from '@waymark/core/journeys/live-run-subjects';
import { journeysWithLiveRuns, liveRunsOtherThan, type LiveRun } from '@waymark/core/journeys/running-versions';
import { journeyVersions } from '@waymark/runtime/journey-versions';
import { locateDivergence, type DivergencePoint } from './divergence-location';
import { fetchOpenHistory, type JourneysCheckDeps } from './fetch-history';
import { isHistoryNotFound } from './history-not-found';
import { diffForward, type ForwardDiff } from './forward-diff';
import { journeysAtRef, loadJourneysFrom, type LoadedJourneys } from './load-journeys';
import { recordedPatches } from './patch-decisions';
import { workingTreeWorkflowBundle } from './working-tree-bundle';

type History = temporal.api.history.v1.IHistory;

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

/** Incompatible runs that diverge the same way (same version, step and replay error), located once. */
export interface DivergenceGroup {
  version: string | null;
  nodeId: string;
  /** the replayer's message */
  divergence: string;
  runs: number;
  /** the run that was followed to find the line */
  example: { userId: string; workflowId: string };
  /** the first differing command and the journey line that issues it; absent when the trace found none */
  point?: DivergencePoint;
}

/** The forward diff of one running version's compatible runs (see forward-diff.ts). */
export type VersionForwardDiff = { version: string | null; base: string } & (ForwardDiff | { skipped: string });

export interface JourneyCheck {
  journeyId: string;
  /** the working tree's version; null when the working tree no longer has this journey */
  workingVersion: string | null;
  versions: JourneyVersionCheck[];
  incompatibleRuns: IncompatibleRun[];
  /** workflow ids of the live runs whose history Temporal no longer has */
  missingRuns: string[];
  /** the incompatible runs grouped by how they diverge, each with the journey line */
  divergences: DivergenceGroup[];
  /** how to keep the incompatible runs, when there are any */
  fix?: string;
  /** per running version: what the compatible runs would be sent differently */
  forward: VersionForwardDiff[];
}

export interface JourneyCheckReport {
  journeysDir: string;
  replayed: number;
  incompatible: number;
  missing: number;
  /** compatible runs run forward under both definitions, and how many of them would be sent something different */
  compared: number;
  changed: number;
  /** the check's moment and how far forward runs were followed (ISO) */
  at: string;
  until: string;
  journeys: JourneyCheck[];
}

export interface JourneyCheckOptions {
  /** the working tree's journeys/ (its modules and templates are hashed and bundled) */
  journeysDir: string;
  /** replay at most this many runs per (journey, version); all when absent */
  sample?: number;
  /** only this journey */
  journeyId?: string;
  /**
   * Where the running definition's code is, for the forward diff: a journeys/ folder, or a git
   * revision of this repository whose journeys/ is read (default HEAD: the deployment is the
   * checkout's last commit). A running version this code does not hash to is not diffed (the report says why).
   */
  base?: string;
  /** how far forward, in ms, runs are followed (default 90 days) */
  horizonMs?: number;
  /** false: replay only */
  forward?: boolean;
}

const DEFAULT_HORIZON_MS = 90 * 86_400_000;

/** Histories fetched ahead of the replayer, so Temporal's answers overlap with replaying. */
const FETCH_AHEAD = 8;

/**
 * `waymark journeys check`: for each journey with live runs whose version differs from the working
 * tree's, replays those runs' histories against the working tree's workflow bundle with the SDK's
 * history replayer. A run whose replay fails would be stuck after the deploy (non-determinism).
 */
export async function checkJourneys(deps: JourneysCheckDeps, options: JourneyCheckOptions): Promise<JourneyCheckReport> {
  const at = new Date();
  const until = new Date(at.getTime() + (options.horizonMs ?? DEFAULT_HORIZON_MS));
  const journeyIds = options.journeyId === undefined ? await journeysWithLiveRuns(deps.db) : [options.journeyId];
  const plans: { journeyId: string; workingVersion: string | null; runs: LiveRun[] }[] = [];
  for (const journeyId of journeyIds) {
    const workingVersion = workingVersionOf(journeyId, options.journeysDir);
    const runs = await liveRunsOtherThan(deps.db, journeyId, workingVersion, options.sample);
    if (runs.length > 0) plans.push({ journeyId, workingVersion, runs });
  }
  const allRuns = plans.flatMap((plan) => plan.runs);
  const { failures, missing, patches } =
    allRuns.length === 0
      ? { failures: new Map<string, string>(), missing: new Set<string>(), patches: new Map<string | null, Set<string>>() }
      : await replayRuns(deps, allRuns, options.journeysDir);

  const sources = new JourneySources(options);
  try {
    const journeys: JourneyCheck[] = [];
    for (const { journeyId, workingVersion, runs } of plans) {
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
      const wantSubjects = workingVersion !== null && (incompatibleRuns.length > 0 || options.forward !== false);
      const subjects = wantSubjects ? await liveRunSubjects(deps.db, { journeyId, except: workingVersion, until: at }) : [];
      const context = { deps, sources, journeyId, subjects, patches, at, until };
      journeys.push({
        journeyId,
        workingVersion,
        versions: [...versions.values()],
        incompatibleRuns,
        missingRuns,
        divergences: workingVersion === null ? groupDivergences(incompatibleRuns) : await locateDivergences(context, incompatibleRuns),
        ...(incompatibleRuns.length === 0 ? {} : { fix: fixFor(journeyId, workingVersion) }),
        forward: options.forward === false || workingVersion === null ? [] : await forwardDiffs(context, runs, { failures, missing }),
      });
    }
    const diffs = journeys.flatMap((journey) => journey.forward).filter((diff): diff is Extract<VersionForwardDiff, ForwardDiff> => 'compared' in diff);
    return {
      journeysDir: options.journeysDir,
      replayed: allRuns.length - missing.size,
      incompatible: journeys.reduce((sum, journey) => sum + journey.incompatibleRuns.length, 0),
      missing: missing.size,
      compared: diffs.reduce((sum, diff) => sum + diff.compared, 0),
      changed: diffs.reduce((sum, diff) => sum + diff.changed, 0),
      at: at.toISOString(),
      until: until.toISOString(),
      journeys,
    };
  } finally {
    sources.release();
  }
}

interface JourneyContext {
  deps: JourneysCheckDeps;
  sources: JourneySources;
  journeyId: string;
  subjects: LiveRunSubject[];
  patches: Map<string | null, Set<string>>;
  at: Date;
  until: Date;
}

/**
 * The two definitions side by side, loaded on first use: the working tree's, and the running one
 * (`base`: a folder, or journeys/ at a git revision).
 */
class JourneySources {
  private working: Promise<LoadedJourneys> | undefined;
  private base: Promise<{ loaded: LoadedJourneys; label: string }> | undefined;
  private readonly releases: (() => void)[] = [];

  constructor(private readonly options: JourneyCheckOptions) {}

  workingTree(): Promise<LoadedJourneys> {
    this.working ??= loadJourneysFrom(this.options.journeysDir).then((loaded) => (this.releases.push(loaded.release), loaded));
    return this.working;
  }

  running(): Promise<{ loaded: LoadedJourneys; label: string }> {
    this.base ??= (async () => {
      const base = this.options.base ?? 'HEAD';
      if (existsSync(base)) {
        const loaded = await loadJourneysFrom(base);
        this.releases.push(loaded.release);
        return { loaded, label: base };
      }
      const extracted = journeysAtRef(base);
      this.releases.push(extracted.release);
      const loaded = await loadJourneysFrom(extracted.dir);
      this.releases.push(loaded.release);
      return { loaded, label: `git ${base}` };
    })();
    return this.base;
  }

  release(): void {
    for (const release of this.releases.splice(0)) release();
  }
}

function groupDivergences(runs: readonly IncompatibleRun[]): DivergenceGroup[] {
  const groups = new Map<string, DivergenceGroup>();
  for (const run of runs) {
    const key = JSON.stringify([run.version, run.nodeId, run.divergence]);
    const group = groups.get(key) ?? {
      version: run.version,
      nodeId: run.nodeId,
      divergence: run.divergence,
      runs: 0,
      example: { userId: run.userId, workflowId: run.workflowId },
    };
    group.runs += 1;
    groups.set(key, group);
  }
  return [...groups.values()].sort((a, b) => b.runs - a.runs);
}

/** Each group's example run followed again on the working tree's code, to name the journey line it diverges at. */
async function locateDivergences(context: JourneyContext, runs: readonly IncompatibleRun[]): Promise<DivergenceGroup[]> {
  const groups = groupDivergences(runs);
  if (groups.length === 0) return groups;
  const loaded = await context.sources.workingTree();
  const journey = loaded.journeys.find((candidate) => candidate.id === context.journeyId);
  for (const group of groups) {
    const subject = context.subjects.find((candidate) => candidate.workflowId === group.example.workflowId);
    const run = runs.find((candidate) => candidate.workflowId === group.example.workflowId);
    if (journey === undefined || subject === undefined || run === undefined) continue;
    const history = await fetchOpenHistory(context.deps, run);
    const point = await locateDivergence(loaded, journey, subject, history, {
      cutoff: context.at,
      recorded: new Set(recordedPatches(history)),
    });
    if (point !== undefined) group.point = point;
  }
  return groups;
}

/**
 * Per running version: its compatible runs (every run of a version none of whose replayed runs
 * failed; else only the replayed ones that passed) run forward under the running and the working
 * tree's definition.
 */
async function forwardDiffs(
  context: JourneyContext,
  replayed: readonly LiveRun[],
  outcome: { failures: ReadonlyMap<string, string>; missing: ReadonlySet<string> },
): Promise<VersionForwardDiff[]> {
  const byVersion = new Map<string | null, LiveRunSubject[]>();
  for (const subject of context.subjects) byVersion.set(subject.version, [...(byVersion.get(subject.version) ?? []), subject]);
  const results: VersionForwardDiff[] = [];
  for (const [version, subjects] of byVersion) {
    const replayedHere = replayed.filter((run) => run.version === version);
    const failing = replayedHere.some((run) => outcome.failures.has(runKey(run)));
    const passed = new Set(replayedHere.filter((run) => !outcome.failures.has(runKey(run)) && !outcome.missing.has(runKey(run))).map(runKey));
    const compatible = subjects.filter((subject) => (failing ? passed.has(subject.workflowId) : !outcome.missing.has(subject.workflowId)));
    const { loaded, label } = await context.sources.running();
    const baseVersion = workingVersionOf(context.journeyId, loaded.dir);
    const before = loaded.journeys.find((candidate) => candidate.id === context.journeyId);
    const after = (await context.sources.workingTree()).journeys.find((candidate) => candidate.id === context.journeyId);
    if (before === undefined || after === undefined || (version !== null && baseVersion !== version)) {
      results.push({
        version,
        base: label,
        skipped:
          before === undefined
            ? `${label} has no journey '${context.journeyId}'`
            : `${label} has v${baseVersion ?? '?'} of '${context.journeyId}', not v${version ?? '?'}: pass --base with the revision (or folder) these runs started on`,
      });
      continue;
    }
    const diff = await diffForward(before, after, compatible, {
      cutoff: context.at,
      until: context.until,
      recorded: context.patches.get(version) ?? new Set(),
    });
    results.push({ version, base: label, ...diff });
  }
  return results;
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
async function replayRuns(
  deps: JourneysCheckDeps,
  runs: readonly LiveRun[],
  journeysDir: string,
): Promise<{ failures: Map<string, string>; missing: Set<string>; patches: Map<string | null, Set<string>> }> {
  const workflowBundle = await workingTreeWorkflowBundle(journeysDir);
  const failures = new Map<string, string>();
  const missing = new Set<string>();
  // the patch markers each version's histories recorded: the forward diff answers `patched()` from them
  const patches = new Map<string | null, Set<string>>();
  const seen = (run: LiveRun, history: History) => {
    const ids = patches.get(run.version) ?? new Set<string>();
    for (const id of recordedPatches(history)) ids.add(id);
    patches.set(run.version, ids);
  };
  const results = Worker.runReplayHistories({ workflowBundle, replayName: `journeys-check-${process.pid}` }, fetchHistories(deps, runs, missing, seen));
  for await (const result of results) {
    if (result.error !== undefined) failures.set(runKey(result), divergenceOf(result.error.message));
  }
  return { failures, missing, patches };
}

async function* fetchHistories(deps: JourneysCheckDeps, runs: readonly LiveRun[], missing: Set<string>, seen: (run: LiveRun, history: History) => void) {
  const fetch = (run: LiveRun) => {
    const fetched = fetchOpenHistory(deps, run).then(
      (history) => {
        seen(run, history);
        return { workflowId: run.workflowId, history };
      },
      (error: unknown) => {
        if (!isHistoryNotFound(error)) throw error;
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
