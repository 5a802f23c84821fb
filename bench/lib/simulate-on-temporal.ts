import { testJourneyOnTemporal } from '@waymark/journey-testing';
import type { SimulationInput } from '@waymark/temporal/simulation/simulate';
import type { Journey } from '@waymark/journey';

/**
 * The previous design of `waymark simulate`, kept here as the benchmark's same-run baseline: each
 * enrollment driven on the Temporal time-skipping test server through the journey test kit, one
 * after another (the shared test server has one clock, so enrollments cannot overlap this way).
 * Returns enrollments per second.
 */
export async function simulateOnTemporal(journey: Journey, subjects: readonly SimulationInput[], until: Date): Promise<number> {
  const startedAt = performance.now();
  for (const subject of subjects) {
    const t = await testJourneyOnTemporal(journey, {
      user: { userId: subject.userId, email: subject.email },
      trigger: { properties: subject.trigger.properties },
    });
    let cursor = subject.trigger.at.getTime();
    const live = () => t.status === 'active' || t.status === 'waiting';
    for (const event of subject.later) {
      if (!live()) break;
      if (event.at.getTime() > cursor) await t.advance(event.at.getTime() - cursor);
      cursor = Math.max(cursor, event.at.getTime());
      await t.emit(event.name, event.properties);
    }
    if (live() && until.getTime() > cursor) await t.advance(until.getTime() - cursor);
  }
  return subjects.length / ((performance.now() - startedAt) / 1000);
}
