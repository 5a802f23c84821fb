import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { primitiveProperties as primitives, type JourneyRunRequest } from '@waymark/core/journeys/orchestrator';
import { journeys } from '@waymark/journeys';
import type { journeyWorkflow, JourneyRunOutcome } from '@waymark/temporal/workflows/journey';
import { journeyEventSignal, journeyProgressQuery } from '@waymark/temporal/workflows/journey-signals';
import { evaluateConditions, type Properties } from '../src/conditions';
import type { Journey } from '../src/define-journey';
import { durationMs, type Duration } from '../src/duration';
import { FakeRun, FakeWorld, type JourneyFakes, type LogEntry, type RunStatus, type SentEmail } from './fake-world';
import { journeyTestServer, type JourneyTestServer } from './test-server';

export interface TestJourneyOptions {
  user?: { userId?: string; email?: string };
  /** the trigger event's properties (what `trigger.where` and `ctx.trigger.properties` see) */
  trigger?: { properties?: Properties };
  fakes?: JourneyFakes;
}

/** A run's state as the admin plane would show it, or `not_entered` when the trigger made no entry. */
export type TestRunStatus = RunStatus | 'not_entered';

const SETTLE_TIMEOUT_MS = 10_000;

/**
 * One enrollment driven through the real journey runner on the time-skipping server. Every
 * method returns once the run has settled: it waits on a timer or an event, or it has ended.
 */
export class JourneyTestRun {
  private constructor(
    private readonly server: JourneyTestServer,
    private readonly journey: Journey,
    private readonly world: FakeWorld,
    private readonly run: FakeRun,
    private readonly handle: WorkflowHandle<typeof journeyWorkflow>,
    readonly userId: string,
  ) {}

  /** signals sent to the run; settling waits until the run has taken each in */
  private signalled = 0;

  static async start(journey: Journey, options: TestJourneyOptions = {}, world?: FakeWorld): Promise<JourneyTestRun> {
    // the workflow bundle finds journeys by id in the one registry, as the worker does
    if (!journeys.some((registered) => registered.id === journey.id)) {
      throw new Error(`testJourney runs registered journeys: add '${journey.id}' to journeys/index.ts`);
    }
    const server = await journeyTestServer();
    const now = async () => new Date(await server.env.currentTimeMs());
    const shared = world ?? new FakeWorld(options.fakes ?? {}, now, await now());
    const userId = options.user?.userId ?? `u-${randomUUID()}`;
    const properties = primitives(options.trigger?.properties ?? {});
    const trigger = shared.record(journey.trigger.event, properties, await now());
    const request: JourneyRunRequest = {
      journeyId: journey.id,
      userId,
      userEmail: options.user?.email ?? `${userId}@example.com`,
      properties,
      trigger: { event: trigger.name, eventId: trigger.eventId, occurredAt: trigger.occurredAt.toISOString() },
    };
    const workflowId = `journey:${journey.id}:${userId}:${trigger.eventId}`;
    const run = new FakeRun(shared, journey.id);
    shared.runs.set(workflowId, run);
    server.runs.set(workflowId, run);
    const handle = await server.env.client.workflow.start<typeof journeyWorkflow>('journeyWorkflow', { taskQueue: server.taskQueue, workflowId, args: [request] });
    const testRun = new JourneyTestRun(server, journey, shared, run, handle, userId);
    await testRun.settle();
    return testRun;
  }

  /** Emails sent so far, in order, with their test-clock time. */
  get sent(): readonly SentEmail[] {
    return this.run.sent;
  }

  /** The journey log: `entered`, `email_sent`, `waiting`, `resumed`, `exited`, … */
  get logs(): readonly LogEntry[] {
    return this.run.logs;
  }

  get status(): TestRunStatus {
    return this.run.status ?? 'not_entered';
  }

  /** Why the trigger made no entry (`trigger_where`, `entry_limit`, `suppressed`, …), once settled. */
  skipReason: string | undefined;

  /** The failure message of a failed run. */
  get error(): string | undefined {
    return this.run.errorMessage;
  }

  /** The test clock. */
  async now(): Promise<Date> {
    return new Date(await this.server.env.currentTimeMs());
  }

  /** Moves the test clock forward; timers that fall due fire in order. */
  async advance(duration: Duration): Promise<void> {
    await this.server.env.sleep(durationMs(duration));
    await this.settle();
  }

  /**
   * The user does something: the event is stored in the fake history, a matching exitOn rule
   * ends the run at once (as the ingest pipeline does), and a run waiting for it receives it.
   */
  async emit(name: string, properties: Properties = {}): Promise<void> {
    const event = this.world.record(name, primitives(properties), await this.now());
    if (!this.run.live) return;
    if (this.journey.exitOn.some((rule) => rule.event === name && evaluateConditions(rule.where, event.properties))) {
      await this.run.log('exited', this.run.logs.at(-1)?.node ?? 'start', { event: name });
      this.run.status = 'exited';
      await this.handle.cancel();
    } else if (this.run.waitingFor === name) {
      this.signalled += 1;
      await this.handle.signal(journeyEventSignal, {
        eventId: event.eventId,
        name,
        occurredAt: event.occurredAt.toISOString(),
        properties: primitives(event.properties),
      });
    }
    await this.settle();
  }

  /** The same user fires the trigger again (for entry limits); the runs share one fake world. */
  triggerAgain(properties: Properties = {}): Promise<JourneyTestRun> {
    return JourneyTestRun.start(this.journey, { user: { userId: this.userId }, trigger: { properties } }, this.world);
  }

  /** Waits until the run sits in a timer or a wait, or has closed. */
  private async settle(): Promise<void> {
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    for (;;) {
      const description = await this.handle.describe();
      if (description.status.name !== 'RUNNING') {
        await this.collectOutcome();
        return;
      }
      if (this.run.deferredUntil !== undefined) return;
      if (this.run.stateId !== undefined) {
        const [progress, now] = await Promise.all([this.handle.query(journeyProgressQuery), this.server.env.currentTimeMs()]);
        // a wait whose end has passed, or an unread signal, means a workflow task is still to come
        const stale = progress.until !== undefined && Date.parse(progress.until) <= now;
        if (progress.phase === 'waiting' && !stale && progress.received >= this.signalled) return;
      }
      if (Date.now() > deadline) throw new Error(`journey ${this.journey.id} did not settle within ${SETTLE_TIMEOUT_MS} ms (status ${this.status})`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  private async collectOutcome(): Promise<void> {
    try {
      const outcome: JourneyRunOutcome = await this.handle.result();
      if (outcome.outcome === 'skipped') this.skipReason = outcome.reason;
    } catch (error) {
      // cancelled (exit) and failed runs are reported through `status` and `error`
      if (!(error instanceof WorkflowFailedError)) throw error;
    }
  }
}

/** Starts one enrollment of `journey` and returns once it has settled (see docs/journeys.md). */
export function testJourney(journey: Journey, options: TestJourneyOptions = {}): Promise<JourneyTestRun> {
  return JourneyTestRun.start(journey, options);
}
