import trialConversion from '@waymark/journeys/trial-conversion';
import { describe, expect, it } from 'vitest';
import { FakeRun, FakeWorld } from './fake-world';
import { exitsRun } from './route-event-to-run';

/** The fake entry behaves as the worker's (core/events/exit-on-entry.ts): an exit event stored before it exits the state. */
describe('the fake run entry and exit events stored before it', () => {
  const enter = async (later: { name: string; properties?: Record<string, string> }[]) => {
    const now = new Date('2026-11-01T00:00:00Z');
    const world = new FakeWorld({}, () => Promise.resolve(now), now);
    const trigger = world.record('trial.started', { plan: 'pro' }, now);
    for (const event of later) world.record(event.name, event.properties ?? {}, now);
    const run = new FakeRun(world, trialConversion.id, (event) => exitsRun(trialConversion, event));
    const entry = await run.activities().enterJourney({
      journeyId: trialConversion.id,
      userId: 'u1',
      userEmail: 'u1@example.com',
      workflowId: 'w1',
      runId: 'w1',
      entryLimit: 'once',
      context: { trigger: { event: trigger.name, eventId: trigger.eventId, occurredAt: now.toISOString() } },
    });
    return { entry, run };
  };

  it('exits the state at its entry with the exit event as the reason', async () => {
    const { entry, run } = await enter([{ name: 'pricing.viewed' }, { name: 'subscription.started' }]);
    expect(entry.entered).toBe(true);
    expect(run.status).toBe('exited');
    expect(run.exitedBy).toBe('subscription.started');
    expect(run.logs.map((log) => log.action)).toEqual(['entered', 'exited']);
  });

  it('enters as usual without one', async () => {
    const { run } = await enter([{ name: 'pricing.viewed' }]);
    expect(run.status).toBe('active');
    expect(run.exitedBy).toBeUndefined();
  });
});
