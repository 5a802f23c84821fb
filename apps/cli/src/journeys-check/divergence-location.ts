import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { temporal } from '@temporalio/proto';
import type { Journey } from '@waymark/journey';
import { primitiveProperties } from '@waymark/core/journeys/orchestrator';
import type { LiveRunSubject } from '@waymark/core/journeys/live-run-subjects';
import { enterWithVia, type EnterJourneyWithInput } from '@waymark/temporal/entry-with-first-step';
import { enteringFirstActivityName, type JourneyRunCalls, type StepName } from '@waymark/temporal/journey-calls';
import { startJourneyRun } from '@waymark/temporal/workflows/journey-run';
import type { JourneyRuntime } from '@waymark/temporal/workflows/journey-runtime';
import { FakeRun, FakeWorld } from '@waymark/temporal/simulation/fake-world';
import { routeEventToRun } from '@waymark/temporal/simulation/route-event-to-run';
import { VirtualClock } from '@waymark/temporal/simulation/virtual-clock';
import { virtualRuntime } from '@waymark/temporal/simulation/virtual-runtime';
import type { LoadedJourneys } from './load-journeys';
import { withPatchDecisions } from './patch-decisions';

type History = temporal.api.history.v1.IHistory;

/** Where the working tree's code leaves a run's recorded path. */
export interface DivergencePoint {
  /** 1-based position among the run's commands (activities and timers) */
  command: number;
  /** what the history recorded there ("activity recordJourneyStep", "timer"); absent: the history has no more commands */
  recorded?: string;
  /** what the working tree's code issues there; absent: it issues nothing more */
  issued?: string;
  /** the line of journey code that issues it (or the last one that issued a command), as path:line */
  location?: string;
  /** that line's source, trimmed */
  code?: string;
}

interface Command {
  name: string;
  frame?: { file: string; line: number };
}

/**
 * The SDK's nondeterminism error says which command types clashed, not which line of the journey
 * issued the new one (its DeterminismViolationError carries only a message). So the run's path is
 * followed again: the working tree's definition runs on the virtual clock from the run's entry with
 * the events it received, up to the check's moment, every command it issues tagged with the stack
 * frame of the `ctx` call that issued it; the first command that differs from the history's is the
 * divergence, and its frame the line.
 */
export async function locateDivergence(
  loaded: LoadedJourneys,
  journey: Journey,
  subject: LiveRunSubject,
  history: History,
  options: { cutoff: Date; recorded: ReadonlySet<string> },
): Promise<DivergencePoint | undefined> {
  const recorded = recordedCommands(history);
  const issued = await traceCommands(loaded, journey, subject, { ...options, entryWithFirstStep: startedWithEntryWithFirstStep(history) });
  for (let index = 0; index < Math.max(recorded.length, issued.length); index += 1) {
    const expected = recorded[index];
    const actual = issued[index];
    if (expected === actual?.name) continue;
    const frame = (actual ?? issued.at(-1))?.frame;
    return {
      command: index + 1,
      ...(expected === undefined ? {} : { recorded: expected }),
      ...(actual === undefined ? {} : { issued: actual.name }),
      ...(frame === undefined ? {} : { location: displayPath(loaded, frame), code: sourceLine(loaded, frame) }),
    };
  }
  return undefined;
}

/** The commands a history recorded, in order: activities (local ones are markers) and timers. */
export function recordedCommands(history: History): string[] {
  const commands: string[] = [];
  for (const event of history.events ?? []) {
    if (event.timerStartedEventAttributes != null) commands.push('timer');
    else if (event.activityTaskScheduledEventAttributes != null)
      commands.push(`activity ${event.activityTaskScheduledEventAttributes.activityType?.name ?? '?'}`);
    else if (event.markerRecordedEventAttributes?.markerName === 'core_local_activity') {
      const data = event.markerRecordedEventAttributes.details?.data?.payloads?.[0]?.data;
      const type = data == null ? undefined : /"activity_type"\s*:\s*"([^"]+)"/.exec(Buffer.from(data).toString('utf8'))?.[1];
      commands.push(`activity ${type ?? '?'}`);
    }
  }
  return commands;
}

/** The run's input asked for its entry with its first call (journey-input.ts): its history has that shape. */
function startedWithEntryWithFirstStep(history: History): boolean {
  const data = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
  return data != null && /"entry"\s*:\s*"with-first-step"/.test(Buffer.from(data).toString('utf8'));
}

async function traceCommands(
  loaded: LoadedJourneys,
  journey: Journey,
  subject: LiveRunSubject,
  options: { cutoff: Date; recorded: ReadonlySet<string>; entryWithFirstStep: boolean },
): Promise<Command[]> {
  const clock = new VirtualClock(subject.trigger.at.getTime());
  const world = new FakeWorld({}, () => Promise.resolve(new Date(clock.now())), subject.trigger.at);
  for (const event of subject.earlier) world.record(event.name, event.properties, event.at);
  const run = new FakeRun(world, journey.id);
  const commands: Command[] = [];
  let frame: Command['frame'];
  const traced: Journey = { ...journey, run: (ctx) => journey.run(tracing(ctx, loaded, (found) => (frame = found ?? frame))) };
  const ids = { workflowId: subject.workflowId, runId: subject.workflowId };
  const inner = virtualRuntime(clock, run.activities(), ids);
  const issue = (name: string) => commands.push({ name, ...(frame === undefined ? {} : { frame }) });
  const calls = Object.fromEntries(
    Object.entries(inner.calls).map(([name, call]) => [
      name,
      (input: never) => {
        issue(`activity ${name}`);
        return (call as (input: never) => Promise<unknown>)(input);
      },
    ]),
  ) as unknown as JourneyRunCalls;
  const enterWith = enterWithVia(run.activities());
  const runtime: JourneyRuntime = {
    ...inner,
    calls,
    sleep: (ms) => (issue('timer'), inner.sleep(ms)),
    condition: (test, timeoutMs) => (issue('timer'), inner.condition(test, timeoutMs)),
    ...(options.entryWithFirstStep
      ? {
          entryWithFirstStep: {
            stateId: randomUUID(),
            enterWith: <K extends StepName>(input: EnterJourneyWithInput<K>) => {
              issue(`activity ${enteringFirstActivityName(input.step.name)}`);
              return enterWith(input);
            },
          },
        }
      : {}),
  };
  const trigger = world.record(journey.trigger.event, subject.trigger.properties, subject.trigger.at);
  world.runs.set(subject.workflowId, run);
  const handle = startJourneyRun(runtime, traced, {
    journeyId: journey.id,
    userId: subject.userId,
    userEmail: subject.email,
    properties: primitiveProperties(subject.trigger.properties),
    trigger: { event: trigger.name, eventId: trigger.eventId, occurredAt: trigger.occurredAt.toISOString() },
  });
  // the trace only needs the commands: a run that fails or is cancelled has issued them
  handle.outcome.catch(() => undefined);
  for (const event of subject.later) {
    clock.at(event.at.getTime(), () => {
      const stored = world.record(event.name, event.properties, event.at);
      const route = routeEventToRun(journey, run, subject.workflowId, stored);
      if (route === 'cancel') inner.cancel();
      else if (route === 'deliver') {
        handle.deliver({ eventId: stored.eventId, name: stored.name, occurredAt: stored.occurredAt.toISOString(), properties: stored.properties });
        inner.wake();
      }
    });
  }
  const cutoff = options.cutoff.getTime();
  await withPatchDecisions({ now: () => clock.now(), cutoff, recorded: options.recorded, past: new Map() }, () => clock.runUntil(cutoff));
  return commands;
}

/** `ctx` with every method (and those of its parts, such as `ctx.history`) noting the journey line that called it. */
function tracing<T extends object>(target: T, loaded: LoadedJourneys, note: (frame: Command['frame']) => void): T {
  return new Proxy(target, {
    get(object, key, receiver) {
      const value: unknown = Reflect.get(object, key, receiver);
      if (typeof value === 'function')
        return (...args: unknown[]) => {
          note(journeyFrame(new Error().stack ?? '', loaded));
          return (value as (...args: unknown[]) => unknown).apply(object, args);
        };
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? tracing(value, loaded, note) : value;
    },
  }) as T;
}

/** The first stack frame inside the loaded copy of journeys/ (source-mapped by tsx and vitest to the .ts line). */
function journeyFrame(stack: string, loaded: LoadedJourneys): Command['frame'] {
  for (const match of stack.matchAll(/\(?((?:file:\/\/)?\/[^\s()]+?):(\d+):\d+\)?$/gm)) {
    const file = match[1]!.startsWith('file://') ? fileURLToPath(match[1]!) : match[1]!;
    if (file.startsWith(loaded.copy + path.sep)) return { file: path.relative(loaded.copy, file), line: Number(match[2]) };
  }
  return undefined;
}

/** relative to the current directory when inside it (journeys/welcome-series.ts:13), else absolute */
function displayPath(loaded: LoadedJourneys, frame: NonNullable<Command['frame']>): string {
  const file = path.join(loaded.dir, frame.file);
  const relative = path.relative(process.cwd(), file);
  return `${relative.startsWith('..') ? file : relative}:${frame.line}`;
}

function sourceLine(loaded: LoadedJourneys, frame: NonNullable<Command['frame']>): string | undefined {
  try {
    return readFileSync(path.join(loaded.dir, frame.file), 'utf8').split('\n')[frame.line - 1]?.trim();
  } catch {
    return undefined; // the working tree changed since it was loaded: the location stands alone
  }
}
