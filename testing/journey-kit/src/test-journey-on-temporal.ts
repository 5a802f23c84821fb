import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { primitiveProperties as primitives } from '@waymark/core/journeys/orchestrator';
import { journeys } from '@waymark/journeys';
import type { journeyWorkflow } from '@waymark/temporal/workflows/journey';
import { journeyWorkflowInput } from '@waymark/temporal/workflows/journey-input';
import { journeyEventSignal, journeyProgressQuery } from '@waymark/temporal/workflows/journey-signals';
import { type Properties, type Journey, durationMs, type Duration } from '@waymark/journey';
import { FakeWorld, type FakeRun } from '@waymark/temporal/simulation/fake-world';
import { routeEventToRun } from '@waymark/temporal/simulation/route-event-to-run';
import { journeyTestServer, type JourneyTestServer } from './test-server';
import { enroll, FakeRunView, SETTLE_TIMEOUT_MS, worldSettings, type JourneyTestRun, type TestJourneyOptions } from './test-run';

/**
 * One enrollment driven through the real workflow (the worker's bundle) on the time-skipping
 * server: the proof that a journey behaves the same on Temporal as in the fast mode.
 */
export class TemporalJourneyTestRun extends FakeRunView implements JourneyTestRun {
  private constructor(
    private readonly server: JourneyTestServer,
    private readonly journey: Journey,
    private readonly world: FakeWorld,
    run: FakeRun,
    private readonly handle: WorkflowHandle<typeof journeyWorkflow>,
    readonly userId: string,
  ) {
    super(run);
    // known without polling: the observer's result() leaves the test clock alone
    this.closed = server.observer
      .getHandle<typeof journeyWorkflow>(handle.workflowId)
      .result()
      .then(
        (outcome) => {
          if (outcome.outcome === 'skipped') this.skipReason = outcome.reason;
          return true;
        },
        (error: unknown) => {
          // cancelled (exit) and failed runs are reported through `status` and `error`
          if (error instanceof WorkflowFailedError) return true;
          throw error;
        },
      );
    // a rejection surfaces in settle(); this handler only marks the end
    this.closed.then(
      () => (this.ended = true),
      () => (this.ended = true),
    );
  }

  private readonly closed: Promise<true>;
  private ended = false;

  /** signals sent to the run; settling waits until the run has taken each in */
  private signalled = 0;

  static async start(journey: Journey, options: TestJourneyOptions = {}, world?: FakeWorld): Promise<TemporalJourneyTestRun> {
    // the workflow bundle finds journeys by id in the one registry, as the worker does
    if (!journeys.some((registered) => registered.id === journey.id)) {
      throw new Error(`testJourneyOnTemporal runs registered journeys: add '${journey.id}' to journeys/index.ts`);
    }
    if (options.startAt !== undefined) throw new Error('startAt is for testJourney: the time-skipping server starts at the real time');
    const server = await journeyTestServer();
    const now = async () => new Date(await server.env.currentTimeMs());
    const { fakes, policy } = worldSettings(options);
    const shared = world ?? new FakeWorld(fakes, now, await now(), policy);
    const { request, workflowId, run } = enroll(journey, options, shared, await now());
    server.runs.set(workflowId, run);
    const handle = await server.env.client.workflow.start<typeof journeyWorkflow>('journeyWorkflow', {
      taskQueue: server.taskQueue,
      workflowId,
      args: [journeyWorkflowInput(request)],
    });
    const testRun = new TemporalJourneyTestRun(server, journey, shared, run, handle, request.userId);
    await testRun.settle();
    return testRun;
  }

  /** Why the trigger made no entry (`trigger_where`, `entry_limit`, `suppressed`, …), once settled. */
  skipReason: string | undefined;

  /** The test clock. */
  async now(): Promise<Date> {
    return new Date(await this.server.env.currentTimeMs());
  }

  /** The run's Temporal history, e.g. to record a replay fixture (docs/journeys.md). */
  history(): ReturnType<WorkflowHandle['fetchHistory']> {
    return this.handle.fetchHistory();
  }

  /** Moves the test clock forward; timers that fall due fire in order. */
  async advance(duration: Duration): Promise<void> {
    const startedAt = Date.now();
    const target = (await this.server.env.currentTimeMs()) + durationMs(duration);
    await this.server.env.sleep(durationMs(duration));
    await this.settle();
    // A step's timer starts when the run reaches it, a few real milliseconds after it would have
    // on paper; a timer that falls in the window but for that lag fires too, so that a 3-day
    // sleep followed by a 4-day wait is over after advance('7 days').
    for (;;) {
      const wake = await this.nextWake();
      if (wake === undefined || wake > target + (Date.now() - startedAt)) return;
      await this.server.env.sleep(Math.max(wake - (await this.server.env.currentTimeMs()), 0) + 1);
      await this.settle();
    }
  }

  /** When the settled run next wakes up by itself (test-clock ms), if it waits at all. */
  private async nextWake(): Promise<number | undefined> {
    if (this.ended || !this.run.live) return undefined;
    if (this.run.deferredUntil !== undefined) return this.run.deferredUntil.getTime();
    const until = (await this.handle.query(journeyProgressQuery)).until;
    return until === undefined ? undefined : Date.parse(until);
  }

  /**
   * The user does something: the event is stored in the fake history, a matching exitOn rule
   * ends the run at once (as the ingest pipeline does), and a run waiting for it receives it.
   */
  async emit(name: string, properties: Properties = {}): Promise<void> {
    const event = this.world.record(name, primitives(properties), await this.now());
    const route = routeEventToRun(this.journey, this.run, this.handle.workflowId, event);
    if (route === 'cancel') {
      await this.handle.cancel();
    } else if (route === 'deliver') {
      this.signalled += 1;
      await this.handle.signal(journeyEventSignal, {
        eventId: event.eventId,
        name,
        occurredAt: event.occurredAt.toISOString(),
        properties: event.properties,
      });
    }
    await this.settle();
  }

  /** The same user fires the trigger again (for entry limits); the runs share one fake world. */
  triggerAgain(properties: Properties = {}): Promise<TemporalJourneyTestRun> {
    return TemporalJourneyTestRun.start(this.journey, { user: { userId: this.userId }, trigger: { properties } }, this.world);
  }

  /** Waits until the run sits in a timer or a wait, or has closed. */
  private async settle(): Promise<void> {
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    while (!(await this.isSettled())) {
      if (Date.now() > deadline) throw new Error(`journey ${this.journey.id} did not settle within ${SETTLE_TIMEOUT_MS} ms (status ${this.status})`);
      await Promise.race([this.closed, new Promise((resolve) => setTimeout(resolve, 2))]);
    }
    if (this.ended) await this.closed;
  }

  private async isSettled(): Promise<boolean> {
    if (this.ended || this.run.deferredUntil !== undefined) return true;
    if (this.run.stateId === undefined || !this.run.live) return false;
    const progress = await this.handle.query(journeyProgressQuery);
    if (progress.phase !== 'waiting' || progress.received < this.signalled) return false;
    // a wait whose end has passed means the timer's workflow task is still to come
    return progress.until === undefined || Date.parse(progress.until) > (await this.server.env.currentTimeMs());
  }
}

/**
 * Starts one enrollment of `journey` on the time-skipping server (the file's shared one: start it
 * in beforeAll, end runs in afterEach, stop it in afterAll) and returns once it has settled. Use
 * it to prove a path on Temporal and to record replay histories (docs/journeys.md).
 */
export function testJourneyOnTemporal(journey: Journey, options: TestJourneyOptions = {}): Promise<TemporalJourneyTestRun> {
  return TemporalJourneyTestRun.start(journey, options);
}
