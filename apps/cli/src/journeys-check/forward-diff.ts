import type { Journey } from '@waymark/journey';
import type { LiveRunSubject } from '@waymark/core/journeys/live-run-subjects';
import { simulateJourney, type SimulatedEnrollment } from '@waymark/temporal/simulation/simulate';
import { VirtualClock } from '@waymark/temporal/simulation/virtual-clock';
import { withPatchDecisions, type PastPatches } from './patch-decisions';

const DAY = 86_400_000;
/** example user ids kept per difference */
const EXAMPLES = 3;

/** What one definition does with a run from the check's moment on. */
export interface RunFuture {
  /** the emails sent at or after the cutoff, in order */
  sends: { templateKey: string; node: string; at: number }[];
  /** how the run stands at the horizon: completed, exited, failed, waiting, active, or not_entered:<reason> */
  status: string;
  /** when it ended (completed, exited, failed); undefined while it still runs at the horizon */
  endedAt?: number;
}

/** One kind of change, with how many runs it touches (e.g. "will get `welcome-tips` on day 2 instead of `welcome-getting-started`"). */
export interface SendDifference {
  change: 'replaced' | 'added' | 'removed' | 'moved' | 'ends';
  /** starts with "will …", read after a count of people */
  summary: string;
  runs: number;
  /** a few of the people it touches (user ids) */
  examples: string[];
}

export interface ForwardDiff {
  /** runs run forward under both definitions */
  compared: number;
  /** runs with at least one difference */
  changed: number;
  differences: SendDifference[];
  /** `patched(id)` calls the running runs have already passed: they keep the old path there (new enrollments take the new one) */
  pastPatches: { patchId: string; runs: number }[];
}

export interface ForwardDiffOptions {
  /** the check's moment: what a run did before it is already in its history, only later sends count */
  cutoff: Date;
  /** how far forward the runs are followed */
  until: Date;
  /** patch ids the runs' histories recorded (their `patched()` was true when first reached) */
  recorded: ReadonlySet<string>;
}

/**
 * Runs the running definition (`before`) and the working tree's (`after`) forward from each
 * run's recorded entry and later events on the virtual clock (the `simulate` machinery, so the
 * production runner and rules), and compares the emails each would send from the check's moment
 * on, and when, run by run. Future events are unknown: both definitions see only the events
 * already recorded.
 */
export async function diffForward(before: Journey, after: Journey, subjects: readonly LiveRunSubject[], options: ForwardDiffOptions): Promise<ForwardDiff> {
  if (subjects.length === 0) return { compared: 0, changed: 0, differences: [], pastPatches: [] };
  const old = await futures(before, subjects, options);
  const next = await futures(after, subjects, options);
  const differences = new Map<string, SendDifference>();
  let changed = 0;
  for (const subject of subjects) {
    const entry = subject.trigger.at.getTime();
    const found = compareFutures(old.byRun.get(subject) ?? NOT_RUN, next.byRun.get(subject) ?? NOT_RUN, entry);
    if (found.length > 0) changed += 1;
    for (const { change, summary } of found) {
      const difference = differences.get(summary) ?? { change, summary, runs: 0, examples: [] };
      difference.runs += 1;
      if (difference.examples.length < EXAMPLES) difference.examples.push(subject.userId);
      differences.set(summary, difference);
    }
  }
  return {
    compared: subjects.length,
    changed,
    differences: [...differences.values()].sort((a, b) => b.runs - a.runs || a.summary.localeCompare(b.summary)),
    pastPatches: [...next.past].map(([patchId, runs]) => ({ patchId, runs })).sort((a, b) => a.patchId.localeCompare(b.patchId)),
  };
}

const NOT_RUN: RunFuture = { sends: [], status: 'not_simulated' };

async function futures(journey: Journey, subjects: readonly LiveRunSubject[], options: ForwardDiffOptions) {
  const clock = new VirtualClock(Math.min(...subjects.map((subject) => subject.trigger.at.getTime())));
  const byRun = new Map<unknown, RunFuture>();
  const past: PastPatches = new Map();
  const cutoff = options.cutoff.getTime();
  const keep = ({ subject, run, skipReason }: SimulatedEnrollment) => {
    const ended = run.logs.findLast((log) => log.action === 'completed' || log.action === 'exited' || log.action === 'failed');
    byRun.set(subject, {
      sends: run.sent
        .filter((email) => email.at.getTime() >= cutoff)
        .map((email) => ({ templateKey: email.templateKey, node: email.node, at: email.at.getTime() })),
      status: run.status ?? `not_entered:${skipReason ?? 'unknown'}`,
      ...(ended === undefined || ended.at.getTime() < cutoff ? {} : { endedAt: ended.at.getTime() }),
    });
  };
  await withPatchDecisions({ now: () => clock.now(), cutoff, recorded: options.recorded, past }, () =>
    simulateJourney(journey, subjects, { until: options.until, clock, samples: 0, onEnrollment: keep }),
  );
  return { byRun, past };
}

/** "day 2", or "day 2 +5h" off a whole day: the offset from the run's entry. */
function when(at: number, entry: number): string {
  const days = Math.floor((at - entry) / DAY);
  const hours = Math.round((at - entry - days * DAY) / 3_600_000);
  return hours === 0 || hours === 24 ? `day ${days + (hours === 24 ? 1 : 0)}` : `day ${days} +${hours}h`;
}

const ENDED: Record<string, string> = { completed: 'complete', exited: 'exit', failed: 'fail' };

/** The differences of one run's two futures, each as a change and a summary. */
export function compareFutures(old: RunFuture, next: RunFuture, entry: number): { change: SendDifference['change']; summary: string }[] {
  const found: { change: SendDifference['change']; summary: string }[] = [];
  const pairs = alignByTemplate(old.sends, next.sends);
  for (const [a, b] of pairs) {
    if (a !== undefined && b !== undefined) {
      if (a.templateKey !== b.templateKey)
        found.push({
          change: 'replaced',
          summary: `will get \`${b.templateKey}\` on ${when(b.at, entry)} instead of \`${a.templateKey}\`${when(a.at, entry) === when(b.at, entry) ? '' : ` (${when(a.at, entry)})`}`,
        });
      else if (a.at !== b.at) found.push({ change: 'moved', summary: `will get \`${b.templateKey}\` on ${when(b.at, entry)} instead of ${when(a.at, entry)}` });
    } else if (b !== undefined) found.push({ change: 'added', summary: `will also get \`${b.templateKey}\` on ${when(b.at, entry)}` });
    else if (a !== undefined) found.push({ change: 'removed', summary: `will no longer get \`${a.templateKey}\` (${when(a.at, entry)})` });
  }
  if (old.status !== next.status) {
    found.push({ change: 'ends', summary: `will end ${next.status} instead of ${old.status} by the horizon` });
  } else if (old.endedAt !== undefined && next.endedAt !== undefined && old.endedAt !== next.endedAt) {
    const verb = ENDED[next.status] ?? `end ${next.status}`;
    found.push({
      change: 'ends',
      summary: `will ${verb} ${next.endedAt < old.endedAt ? 'earlier' : 'later'} (${when(next.endedAt, entry)} instead of ${when(old.endedAt, entry)})`,
    });
  }
  return found;
}

type Send = RunFuture['sends'][number];

/**
 * Pairs the two send lists: a longest common subsequence by template keeps the same email paired
 * (so one inserted email is one addition, not a shifted list of replacements); what lies between
 * two kept pairs is paired in order (a replacement), the rest is an addition or a removal.
 */
function alignByTemplate(old: readonly Send[], next: readonly Send[]): [Send | undefined, Send | undefined][] {
  const lengths = Array.from({ length: old.length + 1 }, () => new Array<number>(next.length + 1).fill(0));
  for (let i = old.length - 1; i >= 0; i -= 1)
    for (let j = next.length - 1; j >= 0; j -= 1)
      lengths[i]![j] = old[i]!.templateKey === next[j]!.templateKey ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
  const pairs: [Send | undefined, Send | undefined][] = [];
  const gapOld: Send[] = [];
  const gapNew: Send[] = [];
  const flush = () => {
    for (let k = 0; k < Math.max(gapOld.length, gapNew.length); k += 1) pairs.push([gapOld[k], gapNew[k]]);
    gapOld.length = 0;
    gapNew.length = 0;
  };
  let i = 0;
  let j = 0;
  while (i < old.length || j < next.length) {
    if (i < old.length && j < next.length && old[i]!.templateKey === next[j]!.templateKey) {
      flush();
      pairs.push([old[i++], next[j++]]);
    } else if (j >= next.length || (i < old.length && lengths[i + 1]![j]! >= lengths[i]![j + 1]!)) gapOld.push(old[i++]!);
    else gapNew.push(next[j++]!);
  }
  flush();
  return pairs;
}
