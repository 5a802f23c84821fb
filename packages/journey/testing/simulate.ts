import type { Properties } from '../src/conditions';
import type { Journey } from '../src/define-journey';
import { testJourney } from './test-journey';

/** One person's history to replay (see loadSimulationSubjects in core). */
export interface SimulationInput {
  userId: string;
  email: string;
  trigger: { at: Date; properties: Properties };
  /** events before the trigger, answered by `ctx.history.hasEvent` */
  earlier?: { name: string; at: Date; properties: Properties }[];
  later: { name: string; at: Date; properties: Properties }[];
}

export interface SimulationReport {
  enrollments: number;
  /** triggers that made no entry, by reason (`trigger_where`, …) */
  notEntered: Record<string, number>;
  /** final status of the enrollments */
  statuses: Record<string, number>;
  sentByTemplate: Record<string, number>;
  /** sends per node */
  byNode: Record<string, number>;
  /** exits by the event that caused them */
  exits: Record<string, number>;
  /** up to `samples` user ids per outcome (`sent:<template>`, `exited:<event>`, `not_entered:<reason>`, `status:<status>`) */
  samples: Record<string, string[]>;
  /** enrollments simulated per second of wall time */
  rate: number;
}

const bump = (counts: Record<string, number>, key: string) => (counts[key] = (counts[key] ?? 0) + 1);

/**
 * Runs the journey's current code over real histories on the time-skipping server with the kit's
 * fakes: each person's later events arrive in order at their real offsets from the trigger, and
 * the clock runs on to `until`. Nothing is sent and nothing is written.
 */
export async function simulateJourney(
  journey: Journey,
  subjects: readonly SimulationInput[],
  options: { until: Date; samples?: number; onProgress?: (done: number, total: number) => void },
): Promise<SimulationReport> {
  const report: SimulationReport = { enrollments: 0, notEntered: {}, statuses: {}, sentByTemplate: {}, byNode: {}, exits: {}, samples: {}, rate: 0 };
  const sample = (key: string, userId: string) => {
    const list = (report.samples[key] ??= []);
    if (list.length < (options.samples ?? 3)) list.push(userId);
  };
  const startedAt = performance.now();
  for (const [index, subject] of subjects.entries()) {
    const events = (subject.earlier ?? []).map((event) => ({
      name: event.name,
      properties: event.properties,
      ago: subject.trigger.at.getTime() - event.at.getTime(),
    }));
    const t = await testJourney(journey, {
      user: { userId: subject.userId, email: subject.email },
      trigger: { properties: subject.trigger.properties },
      fakes: { events },
    });
    let cursor = subject.trigger.at.getTime();
    let exitEvent: string | undefined;
    // a getter: read afresh after each step (TypeScript would narrow a plain property read)
    const live = () => t.status === 'active' || t.status === 'waiting';
    for (const event of subject.later) {
      if (!live()) break;
      if (event.at.getTime() > cursor) await t.advance(event.at.getTime() - cursor);
      cursor = Math.max(cursor, event.at.getTime());
      await t.emit(event.name, event.properties);
      if (!live()) exitEvent = t.status === 'exited' ? event.name : undefined;
    }
    if (live() && options.until.getTime() > cursor) await t.advance(options.until.getTime() - cursor);

    if (t.status === 'not_entered') {
      bump(report.notEntered, t.skipReason ?? 'unknown');
      sample(`not_entered:${t.skipReason ?? 'unknown'}`, subject.userId);
    } else {
      report.enrollments += 1;
      bump(report.statuses, t.status);
      sample(`status:${t.status}`, subject.userId);
    }
    for (const email of t.sent) {
      bump(report.sentByTemplate, email.templateKey);
      bump(report.byNode, email.node);
      sample(`sent:${email.templateKey}`, subject.userId);
    }
    if (exitEvent !== undefined) {
      bump(report.exits, exitEvent);
      sample(`exited:${exitEvent}`, subject.userId);
    }
    options.onProgress?.(index + 1, subjects.length);
  }
  const seconds = (performance.now() - startedAt) / 1000;
  report.rate = seconds === 0 ? 0 : Math.round((subjects.length / seconds) * 10) / 10;
  return report;
}
