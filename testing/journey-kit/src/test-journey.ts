import { randomUUID } from 'node:crypto';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/common';
import { isCancellation } from '@temporalio/workflow';
import { primitiveProperties as primitives } from '@waymark/core/journeys/orchestrator';
import { startJourneyRun, type JourneyRunHandle } from '@waymark/temporal/workflows/journey-run';
import { type Properties, type Journey, durationMs, type Duration, withPolicyQuietHours } from '@waymark/journey';
import { FakeWorld, loadTemplateRegistry, type FakeRun } from '@waymark/temporal/simulation/fake-world';
import { routeEventToRun } from '@waymark/temporal/simulation/route-event-to-run';
import { enroll, FakeRunView, SETTLE_TIMEOUT_MS, worldSettings, type JourneyTestRun, type TestJourneyOptions } from './test-run';
import { VirtualClock } from '@waymark/temporal/simulation/virtual-clock';
import { virtualRuntime, type VirtualRuntime } from '@waymark/temporal/simulation/virtual-runtime';

// The send fake checks data against the templates' props schemas. Their registry pulls in every
// React Email component (a second or more of CPU): loaded while the test file is collected, it is
// part of the file's shared start rather than of its first test, and then answers from memory.
await loadTemplateRegistry();

/** One test's timeline: a virtual clock and the user's fake world, shared by the runs `triggerAgain` adds. */
class Timeline {
  readonly clock: VirtualClock;
  readonly world: FakeWorld;
  readonly runs: VirtualJourneyTestRun[] = [];
  /** the arm every run of the timeline draws (`triggerAgain` re-enters the same person) */
  readonly arm: 'assign' | 'holdout' | 'treatment';

  constructor(options: TestJourneyOptions) {
    this.arm = options.arm ?? 'assign';
    const { fakes, policy } = worldSettings(options);
    this.clock = new VirtualClock(options.startAt?.getTime() ?? Date.now());
    this.world = new FakeWorld(fakes, () => Promise.resolve(this.date()), this.date(), policy);
  }

  date(): Date {
    return new Date(this.clock.now());
  }

  /**
   * Returns once every run has reacted to what happened: the fakes answer from memory, so that is
   * normally one turn of the event loop; a run that is still busy after SETTLE_TIMEOUT_MS is stuck.
   */
  async settled(): Promise<void> {
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    for (;;) {
      await nextMacrotask();
      const busy = this.runs.find((run) => !run.settled());
      if (busy === undefined) return;
      if (Date.now() > deadline) throw new Error(`journey ${busy.journeyId} did not settle within ${SETTLE_TIMEOUT_MS} ms (status ${busy.status})`);
    }
  }
}

/**
 * One enrollment driven through the workflow's own runner (temporal/workflows/journey-run.ts) on
 * a virtual clock in this process: the same rules as on Temporal (trigger.where, entry guards,
 * exits, suppress.hours, retries), with the same fakes, and no server or worker to wait for.
 */
class VirtualJourneyTestRun extends FakeRunView implements JourneyTestRun {
  skipReason: string | undefined;
  private ended = false;
  /** a rejection of the run that is neither an exit nor a journey failure: a bug to surface */
  private crash: unknown;

  private constructor(
    private readonly timeline: Timeline,
    private readonly journey: Journey,
    run: FakeRun,
    private readonly runtime: VirtualRuntime,
    private readonly handle: JourneyRunHandle,
    readonly userId: string,
  ) {
    super(run);
    handle.outcome.then(
      (outcome) => {
        if (outcome.outcome === 'skipped') this.skipReason = outcome.reason;
        this.ended = true;
      },
      (error: unknown) => {
        // an exit ends the run as a cancellation, a failed journey with JourneyFailed (both shown by `status`)
        if (!isCancellation(error) && !(error instanceof ApplicationFailure && error.type === 'JourneyFailed')) this.crash = error;
        this.ended = true;
      },
    );
  }

  static async start(declared: Journey, options: TestJourneyOptions, existing?: Timeline): Promise<VirtualJourneyTestRun> {
    const timeline = existing ?? new Timeline(options);
    // the policy's quiet hours for a journey without its own, as the worker's workflow applies them
    const journey = withPolicyQuietHours(declared, timeline.world.policy);
    const { request, workflowId, run } = enroll(journey, options, timeline.world, timeline.date());
    const runtime = virtualRuntime(timeline.clock, run.activities(), { workflowId, runId: randomUUID() });
    const testRun = new VirtualJourneyTestRun(
      timeline,
      journey,
      run,
      runtime,
      startJourneyRun(runtime, journey, request, { arm: timeline.arm }),
      request.userId,
    );
    timeline.runs.push(testRun);
    await testRun.step(() => timeline.settled());
    return testRun;
  }

  get journeyId(): string {
    return this.journey.id;
  }

  /** It waits on a timer, an event or a deferred send, or it has ended. */
  settled(): boolean {
    return this.ended || this.run.deferredUntil !== undefined || this.handle.progress.phase === 'waiting';
  }

  now(): Promise<Date> {
    return Promise.resolve(this.timeline.date());
  }

  advance(duration: Duration): Promise<void> {
    const { clock } = this.timeline;
    return this.step(() => clock.runUntil(clock.now() + durationMs(duration), () => this.timeline.settled()));
  }

  emit(name: string, properties: Properties = {}): Promise<void> {
    const event = this.timeline.world.record(name, primitives(properties), this.timeline.date());
    const route = routeEventToRun(this.journey, this.run, this.runtime.workflowId, event);
    if (route === 'cancel') {
      this.runtime.cancel();
    } else if (route === 'deliver') {
      this.handle.deliver({ eventId: event.eventId, name, occurredAt: event.occurredAt.toISOString(), properties: event.properties });
      this.runtime.wake();
    }
    return this.step(() => this.timeline.settled());
  }

  triggerAgain(properties: Properties = {}): Promise<JourneyTestRun> {
    return this.trigger(this.journey, properties);
  }

  /** The same user fires `journey`'s trigger on this run's clock and fake world. */
  trigger(journey: Journey, properties: Properties): Promise<VirtualJourneyTestRun> {
    return VirtualJourneyTestRun.start(journey, { user: { userId: this.userId }, trigger: { properties } }, this.timeline);
  }

  /** Runs one step of the test, then surfaces a run that broke in a way no journey can (a kit or runner bug). */
  private async step(work: () => Promise<void>): Promise<void> {
    await work();
    const crashed = this.timeline.runs.find((run) => run.crash !== undefined);
    if (crashed !== undefined) throw crashed.crash;
  }
}

/**
 * Starts one enrollment of `journey` on its own virtual clock and returns once it has settled: the
 * kit's default mode, for every path of a journey (docs/journeys.md). No hooks are needed; each
 * call is independent, except the runs `triggerAgain` adds, which share its clock and fakes.
 */
export function testJourney(journey: Journey, options: TestJourneyOptions = {}): Promise<JourneyTestRun> {
  return VirtualJourneyTestRun.start(journey, options);
}

/**
 * The same person triggers each of `journeys` at the same test-clock moment (in list order): one
 * user, one fake world and clock, so the delivery policy's frequency caps count every run's sends.
 * `advance` on any run moves the shared clock for all of them.
 */
export async function testJourneys(journeys: readonly Journey[], options: TestJourneyOptions = {}): Promise<JourneyTestRun[]> {
  const [first, ...rest] = journeys;
  if (first === undefined) throw new Error('testJourneys needs at least one journey');
  const run = await VirtualJourneyTestRun.start(first, options);
  const runs: JourneyTestRun[] = [run];
  for (const journey of rest) runs.push(await run.trigger(journey, options.trigger?.properties ?? {}));
  return runs;
}
