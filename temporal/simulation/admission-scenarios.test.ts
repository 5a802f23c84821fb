import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { admissionScenarios, scenarioUserId, type AdmissionScenario } from '../../test/admission-scenarios';
import { FakeRun, FakeWorld, loadTemplateRegistry } from './fake-world';

await loadTemplateRegistry();

/** A scenario's answer in the kit's world: what the journey test kit would show. */
async function kitAnswer(scenario: AdmissionScenario): Promise<string> {
  const now = new Date('2026-12-01T12:00:00Z');
  const person = scenario.person ?? {};
  const world = new FakeWorld(
    {
      ...(person.suppressed === undefined ? {} : { suppressed: person.suppressed }),
      ...(person.unsubscribed === undefined ? {} : { unsubscribed: person.unsubscribed }),
      ...(person.reputationPaused === undefined ? {} : { reputationPaused: person.reputationPaused }),
      ...(person.warmupSpent === true ? { warmupLeft: 0 } : {}),
      ...(person.lastJourneyEmailHoursAgo === undefined ? {} : { lastEmailAgo: `${person.lastJourneyEmailHoursAgo}h` }),
      sentBefore: (person.sentBefore ?? []).map((category) => ({ category, ago: '1h' })),
    },
    () => Promise.resolve(now),
    now,
    scenario.policy,
  );
  const run = new FakeRun(world, 'admission');
  // entered: the scenario asks the send step, not the entry's guard
  run.status = 'active';
  try {
    const result = await run.activities().sendJourneyEmail({
      stateId: 'state-1',
      journeyId: 'admission',
      userId: scenarioUserId(scenario),
      userEmail: 'person@waymark-test.example',
      templateKey: 'welcome',
      nodeId: 'welcome',
      data: { firstName: 'Ada' },
      category: scenario.send.category,
      idempotencyKey: 'admission:welcome:1',
      ...(scenario.send.suppressHours === undefined ? {} : { suppressHours: scenario.send.suppressHours }),
      ...(scenario.send.holdout === undefined ? {} : { holdout: scenario.send.holdout }),
    });
    return result.status === 'sent' ? 'send' : `skip:${result.reason}`;
  } catch (error) {
    if (!(error instanceof ApplicationFailure)) throw error;
    return `defer:${String(run.logs.at(-1)?.detail?.reason)}`;
  }
}

/** The table of delivery/admit-sends.ts through the kit's world; admit-sends.int.test.ts runs it through the database. */
describe('admitting a journey send in the kit’s world', () => {
  it.each(admissionScenarios)('$name → $expected', async (scenario) => {
    expect(await kitAnswer(scenario)).toBe(scenario.expected);
  });
});
