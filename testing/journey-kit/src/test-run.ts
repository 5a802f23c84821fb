import { randomUUID } from 'node:crypto';
import { primitiveProperties, type JourneyRunRequest } from '@waymark/core/journeys/orchestrator';
import { journeyWorkflowId } from '@waymark/temporal/journey-workflow-id';
import type { DeliveryPolicy, Properties, Journey, Duration } from '@waymark/journey';
import { deliveryPolicy as installationPolicy } from '@waymark/journeys/delivery-policy';
import {
  FakeRun,
  type Conversion,
  type FakeWorld,
  type JourneyFakes,
  type LogEntry,
  type RunStatus,
  type SentEmail,
} from '@waymark/temporal/simulation/fake-world';
import { exitsRun } from '@waymark/temporal/simulation/route-event-to-run';

export interface TestJourneyOptions {
  user?: { userId?: string; email?: string };
  /** the trigger event's properties (what `trigger.where` and `ctx.trigger.properties` see) */
  trigger?: { properties?: Properties };
  fakes?: JourneyFakes;
  /** where the test clock starts (default: now); `testJourney` only, the time-skipping server starts at the real time */
  startAt?: Date;
  /** the recipient's IANA time zone (shorthand for `fakes.timeZone`; default 'UTC') */
  timeZone?: string;
  /**
   * the delivery policy: its frequency caps and, for a journey without its own, its quiet hours
   * (default: the installation's, journeys/delivery-policy.ts; on Temporal the workflow bundle's
   * quiet hours are always the installation's)
   */
  policy?: DeliveryPolicy;
  /**
   * the person's arm for a journey with a goal or a holdout: `holdout` gets every email skipped
   * (reason `holdout`) but a required category's; default: the journey's own hash of the user id,
   * as in production. `testJourney` only (on Temporal the workflow draws the arm).
   */
  arm?: 'holdout' | 'treatment';
}

/** The fakes and the policy a test's fake world is built with. */
export function worldSettings(options: TestJourneyOptions): { fakes: JourneyFakes; policy: DeliveryPolicy } {
  const fakes = options.timeZone === undefined ? (options.fakes ?? {}) : { ...options.fakes, timeZone: options.timeZone };
  return { fakes, policy: options.policy ?? installationPolicy };
}

const HOLD_REASONS = ['frequency_cap', 'reputation', 'warmup'] as const;

/** A send held by the journey's quiet hours, a `delay` frequency cap, the reputation breaker or the warm-up, from the run log. */
export interface Hold {
  reason: 'quiet_hours' | (typeof HOLD_REASONS)[number];
  node: string;
  /** the end of the hold on the recipient's clock, with its offset: '2026-12-01T08:00+01:00' */
  until: string;
  timeZone: string;
  /** test-clock time the hold began */
  at: Date;
  /** the cap that held it ('2 per 24h (journey)'), for `frequency_cap` */
  cap?: string;
}

/** A send the run did not make (`email_skipped` in the log): unsubscribed, suppressed, over a `skip` frequency cap, … */
export interface Skip {
  node: string;
  templateKey: string;
  /** `frequency_cap`, `category_unsubscribed`, `unsubscribed_all`, `suppressed`, … */
  reason: string;
  /** the cap that skipped it ('2 per 24h (journey)'), for `frequency_cap` */
  cap?: string;
  at: Date;
}

/** A run's state as the admin plane would show it, or `not_entered` when the trigger made no entry. */
export type TestRunStatus = RunStatus | 'not_entered';

/**
 * One enrollment under test, the same in both modes of the kit (`testJourney` on a virtual clock,
 * `testJourneyOnTemporal` on the time-skipping server; docs/journeys.md). Every method returns
 * once the run has settled: it waits on a timer or an event, or it has ended.
 */
export interface JourneyTestRun {
  readonly userId: string;
  /** Emails sent so far, in order, with their test-clock time. */
  readonly sent: readonly SentEmail[];
  /** The journey log: `entered`, `email_sent`, `waiting`, `resumed`, `exited`, … */
  readonly logs: readonly LogEntry[];
  /** Sends held by quiet hours or a `delay` frequency cap so far, in order (`held` in the log). */
  readonly holds: readonly Hold[];
  /** Sends skipped so far, in order (`email_skipped` in the log), e.g. by a `skip` frequency cap. */
  readonly skips: readonly Skip[];
  readonly status: TestRunStatus;
  /** Why the trigger made no entry (`trigger_where`, `entry_limit`, `suppressed`, …), once settled. */
  readonly skipReason: string | undefined;
  /** The failure message of a failed run. */
  readonly error: string | undefined;
  /** The person's arm: true when held out, false in treatment, undefined for a journey with neither goal nor holdout. */
  readonly holdout: boolean | undefined;
  /** The journey's goal met: when, through which event, with which value; undefined until then. */
  readonly converted: Conversion | undefined;
  /** The test clock. */
  now(): Promise<Date>;
  /** Moves the test clock forward; timers that fall due fire in order. */
  advance(duration: Duration): Promise<void>;
  /**
   * The user does something: the event is stored in the fake history, a matching exitOn rule
   * ends the run at once (as the ingest pipeline does), and a run waiting for it receives it.
   */
  emit(name: string, properties?: Properties): Promise<void>;
  /** The same user fires the trigger again (for entry limits); the runs share one fake world and clock. */
  triggerAgain(properties?: Properties): Promise<JourneyTestRun>;
}

/** How long a run may take to settle after a step before the kit calls it stuck. */
export const SETTLE_TIMEOUT_MS = 10_000;

/**
 * A new enrollment of the user in `world`: the trigger event stored at `at`, the run request the
 * ingest pipeline would make of it, its workflow id, and the fake run the activities write to.
 */
export function enroll(
  journey: Journey,
  options: TestJourneyOptions,
  world: FakeWorld,
  at: Date,
): { request: JourneyRunRequest; workflowId: string; run: FakeRun } {
  const userId = options.user?.userId ?? `u-${randomUUID()}`;
  const properties = primitiveProperties(options.trigger?.properties ?? {});
  const trigger = world.record(journey.trigger.event, properties, at);
  const request: JourneyRunRequest = {
    journeyId: journey.id,
    userId,
    userEmail: options.user?.email ?? `${userId}@example.com`,
    properties,
    trigger: { event: trigger.name, eventId: trigger.eventId, occurredAt: trigger.occurredAt.toISOString() },
  };
  const workflowId = journeyWorkflowId(request);
  const run = new FakeRun(world, journey.id, (event) => exitsRun(journey, event));
  world.runs.set(workflowId, run);
  return { request, workflowId, run };
}

/** The members both modes read from the fake run alike. */
export abstract class FakeRunView {
  constructor(protected readonly run: FakeRun) {}

  get sent(): readonly SentEmail[] {
    return this.run.sent;
  }

  get logs(): readonly LogEntry[] {
    return this.run.logs;
  }

  get holds(): readonly Hold[] {
    return this.run.logs
      .filter((log) => log.action === 'held')
      .map((log) => ({
        reason: HOLD_REASONS.find((reason) => reason === log.detail?.reason) ?? ('quiet_hours' as const),
        node: log.node,
        // a reputation or warm-up hold ends at an instant (UTC), not on the recipient's clock
        until: String(log.detail?.localUntil ?? log.detail?.until),
        timeZone: String(log.detail?.timeZone ?? 'UTC'),
        at: log.at,
        ...(typeof log.detail?.cap === 'string' ? { cap: log.detail.cap } : {}),
      }));
  }

  get skips(): readonly Skip[] {
    return this.run.logs
      .filter((log) => log.action === 'email_skipped')
      .map((log) => ({
        node: log.node,
        templateKey: String(log.detail?.templateKey),
        reason: String(log.detail?.reason),
        at: log.at,
        ...(typeof log.detail?.cap === 'string' ? { cap: log.detail.cap } : {}),
      }));
  }

  get status(): TestRunStatus {
    return this.run.status ?? 'not_entered';
  }

  get error(): string | undefined {
    return this.run.errorMessage;
  }

  get holdout(): boolean | undefined {
    return this.run.holdout;
  }

  get converted(): Conversion | undefined {
    return this.run.converted;
  }
}
