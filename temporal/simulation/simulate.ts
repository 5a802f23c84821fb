import { primitiveProperties, type JourneyEventSignal } from '@waymark/core/journeys/orchestrator';
import type { SimulationReport } from '@waymark/core/journeys/simulation';
import { startJourneyRun, type JourneyRunOutcome } from '../workflows/journey-run';
import { NO_DELIVERY_POLICY, withPolicyQuietHours, type DeliveryPolicy, type Properties, type Journey } from '@waymark/journey';
import { FakeRun, FakeWorld, loadTemplateRegistry } from './fake-world';
import { exitsRun, routeEventToRun } from './route-event-to-run';
import { VirtualClock } from './virtual-clock';
import { virtualRuntime, type VirtualRuntime } from './virtual-runtime';

/** One person's history to replay (see loadSimulationSubjects in core). */
export interface SimulationInput {
  userId: string;
  email: string;
  trigger: { at: Date; properties: Properties };
  /** events before the trigger, answered by `ctx.history.hasEvent` */
  earlier?: { name: string; at: Date; properties: Properties }[];
  later: { name: string; at: Date; properties: Properties }[];
  /** the person's own time zone (their contact's `timezone`), else `defaultTimeZone` */
  timeZone?: string;
  /** emails that reached the person from elsewhere (other journeys, broadcasts): counted by the frequency caps */
  otherSends?: { at: Date; category: string }[];
}

export type { SimulationReport };

export interface SimulationOptions {
  until: Date;
  /** user ids kept per outcome (default 3) */
  samples?: number;
  /** called as runs end, about every 1 % (and once at the end with done = total) */
  onProgress?: (done: number, total: number) => void;
  /** the delivery policy whose caps and quiet hours apply (default: none) */
  policy?: DeliveryPolicy;
  /** DEFAULT_TIMEZONE: the clock of a person without a `timezone` (default 'UTC') */
  defaultTimeZone?: string;
  /** the clock to run on (default: a new one at the first trigger): a caller that reads virtual time while runs execute passes its own */
  clock?: VirtualClock;
  /** called once per subject at `until`, in input order: what that person's run sent and how it stands (the journey check compares runs one by one) */
  onEnrollment?: (enrollment: SimulatedEnrollment) => void;
}

/** One subject's run at the end of a simulation. */
export interface SimulatedEnrollment {
  subject: SimulationInput;
  run: FakeRun;
  skipReason?: string;
  exitEvent?: string;
}

const bump = (counts: Record<string, number>, key: string) => (counts[key] = (counts[key] ?? 0) + 1);

interface Enrollment {
  subject: SimulationInput;
  world: FakeWorld;
  run: FakeRun;
  runtime?: VirtualRuntime;
  deliver?: (event: JourneyEventSignal) => void;
  skipReason?: string;
}

/**
 * Runs the journey's current code over real histories, all enrollments on ONE virtual timeline:
 * each trigger starts its run at the trigger's real time, each later event reaches its person at
 * its real time, in global time order, and the clock jumps from one due item to the next up to
 * `until`. The runner is the workflow's own (temporal/workflows/journey-run.ts) with the journey
 * test kit's in-memory activities, so the rules are the production ones; nothing is sent or written.
 * Why not the Temporal test server: at a workflow task and an activity task per step it tops out
 * far below the rate a month of history needs (bench/README.md, Simulate).
 */
export async function simulateJourney(declared: Journey, subjects: readonly SimulationInput[], options: SimulationOptions): Promise<SimulationReport> {
  const startedAt = performance.now();
  const first = subjects.reduce((earliest, subject) => Math.min(earliest, subject.trigger.at.getTime()), options.until.getTime());
  const clock = options.clock ?? new VirtualClock(first);
  const now = () => Promise.resolve(new Date(clock.now()));
  const total = subjects.length;
  const step = Math.max(1, Math.ceil(total / 100));
  let done = 0;
  const ended = () => {
    done += 1;
    if (done % step === 0 && done < total) options.onProgress?.(done, total);
  };

  const policy = options.policy ?? NO_DELIVERY_POLICY;
  const journey = withPolicyQuietHours(declared, policy);
  const enrollments = subjects.map((subject, index): Enrollment => {
    // each person on their own clock, as the worker asks their contact's zone
    const world = new FakeWorld({ timeZone: subject.timeZone ?? options.defaultTimeZone ?? 'UTC' }, now, subject.trigger.at, policy);
    for (const send of subject.otherSends ?? []) world.sends.push({ at: send.at.getTime(), category: send.category });
    for (const event of subject.earlier ?? []) world.record(event.name, primitiveProperties(event.properties), event.at);
    const enrollment: Enrollment = { subject, world, run: new FakeRun(world, journey.id, (event) => exitsRun(journey, event)) };
    clock.at(subject.trigger.at.getTime(), () => start(enrollment, index));
    for (const event of subject.later) clock.at(event.at.getTime(), () => receive(enrollment, event));
    return enrollment;
  });

  function start(enrollment: Enrollment, index: number): void {
    const { subject, world, run } = enrollment;
    const properties = primitiveProperties(subject.trigger.properties);
    const trigger = world.record(journey.trigger.event, properties, subject.trigger.at);
    const workflowId = `simulation:${journey.id}:${subject.userId}:${index}`;
    world.runs.set(workflowId, run);
    const runtime = virtualRuntime(clock, run.activities(), { workflowId, runId: workflowId });
    const handle = startJourneyRun(
      runtime,
      journey,
      {
        journeyId: journey.id,
        userId: subject.userId,
        userEmail: subject.email,
        properties,
        trigger: { event: trigger.name, eventId: trigger.eventId, occurredAt: trigger.occurredAt.toISOString() },
      },
      { arm: 'assign' },
    );
    enrollment.runtime = runtime;
    enrollment.deliver = handle.deliver;
    handle.outcome.then(
      (outcome: JourneyRunOutcome) => {
        if (outcome.outcome === 'skipped') enrollment.skipReason = outcome.reason;
        ended();
      },
      // cancelled (exit) and failed runs are reported through the fake run's status
      ended,
    );
  }

  function receive(enrollment: Enrollment, event: SimulationInput['later'][number]): void {
    const stored = enrollment.world.record(event.name, primitiveProperties(event.properties), event.at);
    const { run, runtime, deliver } = enrollment;
    if (runtime === undefined || deliver === undefined) return;
    const route = routeEventToRun(journey, run, runtime.workflowId, stored);
    if (route === 'cancel') {
      runtime.cancel();
    } else if (route === 'deliver') {
      deliver({ eventId: stored.eventId, name: stored.name, occurredAt: stored.occurredAt.toISOString(), properties: stored.properties });
      runtime.wake();
    }
  }

  // the send fake's first use would import the template registry (real I/O, many event-loop turns)
  // while the clock runs on: loaded first, every simulated call answers from memory
  await loadTemplateRegistry();
  await clock.runUntil(options.until.getTime());
  options.onProgress?.(total, total);
  if (options.onEnrollment !== undefined)
    for (const { subject, run, skipReason } of enrollments) options.onEnrollment({ subject, run, skipReason, exitEvent: run.exitedBy });
  return report(journey, enrollments, options.samples ?? 3, (performance.now() - startedAt) / 1000);
}

function report(journey: Journey, enrollments: readonly Enrollment[], samples: number, seconds: number): SimulationReport {
  const frequencyCaps = { skipped: 0, delayed: 0 };
  const result: SimulationReport = {
    enrollments: 0,
    notEntered: {},
    statuses: {},
    sentByTemplate: {},
    byNode: {},
    exits: {},
    samples: {},
    rate: 0,
    frequencyCaps,
  };
  const sample = (key: string, userId: string) => {
    const list = (result.samples[key] ??= []);
    if (list.length < samples) list.push(userId);
  };
  for (const { subject, run, skipReason } of enrollments) {
    const exitEvent = run.exitedBy;
    if (run.status === undefined) {
      const reason = skipReason ?? 'unknown';
      bump(result.notEntered, reason);
      sample(`not_entered:${reason}`, subject.userId);
    } else {
      result.enrollments += 1;
      bump(result.statuses, run.status);
      sample(`status:${run.status}`, subject.userId);
    }
    for (const email of run.sent) {
      bump(result.sentByTemplate, email.templateKey);
      bump(result.byNode, email.node);
      sample(`sent:${email.templateKey}`, subject.userId);
    }
    const capped = run.logs.filter((log) => log.detail?.reason === 'frequency_cap');
    const skipped = capped.filter((log) => log.action === 'email_skipped').length;
    // a send held twice (the window filled again meanwhile) is one delayed send
    const delayed = new Set(capped.filter((log) => log.action === 'held').map((log) => log.node)).size;
    frequencyCaps.skipped += skipped;
    frequencyCaps.delayed += delayed;
    if (skipped > 0) sample('frequency_cap:skipped', subject.userId);
    if (delayed > 0) sample('frequency_cap:delayed', subject.userId);
    if (run.converted !== undefined) sample(`converted:${run.holdout === true ? 'holdout' : 'treatment'}`, subject.userId);
    if (exitEvent !== undefined) {
      bump(result.exits, exitEvent);
      sample(`exited:${exitEvent}`, subject.userId);
    }
  }
  result.rate = seconds === 0 ? 0 : Math.round((enrollments.length / seconds) * 10) / 10;
  if (journey.goal !== undefined) result.arms = conversionsByArm(enrollments);
  return result;
}

/** Per arm, the enrollments and those whose goal event came within the window (docs/journeys.md, "Goals, holdouts and lift"). */
function conversionsByArm(enrollments: readonly Enrollment[]): NonNullable<SimulationReport['arms']> {
  const arms = { treatment: { enrolled: 0, converted: 0 }, holdout: { enrolled: 0, converted: 0 } };
  for (const { run } of enrollments) {
    if (run.status === undefined) continue;
    const arm = run.holdout === true ? arms.holdout : arms.treatment;
    arm.enrolled += 1;
    if (run.converted !== undefined) arm.converted += 1;
  }
  return arms;
}
