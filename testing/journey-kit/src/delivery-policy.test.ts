import { defineDeliveryPolicy, defineJourney, programHoldoutArm, type Journey } from '@waymark/journey';
import { describe, expect, it } from 'vitest';
import { testJourney, testJourneys } from './test-journey';

const data = { firstName: 'Ada' };

/** A journey that sends one `welcome` email of `category` at once. */
const sendsAtOnce = (id: string, category = 'journey'): Journey =>
  defineJourney({
    id,
    name: id,
    description: id,
    trigger: { event: 'user.signed_up' },
    category,
    run: async (ctx) => {
      await ctx.sendEmail('welcome', { data });
    },
  });

const three = [sendsAtOnce('cap-a'), sendsAtOnce('cap-b'), sendsAtOnce('cap-c')];
const startAt = new Date('2026-12-01T10:00:00Z');
const capOf = (onCap: 'skip' | 'delay') => defineDeliveryPolicy({ caps: [{ category: 'journey', max: 2, per: '24h', onCap }] });

describe('frequency caps of the delivery policy', () => {
  it('skip: a cap of 2 per 24 h, three journeys at once → 2 sent, the third skipped by the cap', async () => {
    const runs = await testJourneys(three, { startAt, policy: capOf('skip') });
    expect(runs.map((run) => run.sent.length)).toEqual([1, 1, 0]);
    expect(runs[2]!.skips).toEqual([{ node: 'welcome', templateKey: 'welcome', reason: 'frequency_cap', cap: '2 per 24h (journey)', at: startAt }]);
    expect(runs[2]!.status).toBe('completed');
  });

  it('delay: the third is held until the window has room and sent the next day', async () => {
    const runs = await testJourneys(three, { startAt, policy: capOf('delay'), timeZone: 'Europe/Paris' });
    const third = runs[2]!;
    expect(third.sent).toEqual([]);
    expect(third.status).toBe('waiting');
    // the first send of the window leaves it 24 h later: 10:00 UTC is 11:00 in Paris
    expect(third.holds).toEqual([
      { reason: 'frequency_cap', node: 'welcome', until: '2026-12-02T11:00+01:00', timeZone: 'Europe/Paris', at: startAt, cap: '2 per 24h (journey)' },
    ]);
    await third.advance('1 day');
    expect(third.sent.map((email) => email.at)).toEqual([new Date('2026-12-02T10:00:00Z')]);
    expect(third.status).toBe('completed');
  });

  it('an exempt category ignores the cap (and its sends are not counted)', async () => {
    const policy = defineDeliveryPolicy({ caps: [{ category: '*', max: 2, per: '24h', onCap: 'skip' }], exempt: ['product-updates'] });
    const runs = await testJourneys([...three.map((journey) => ({ ...journey, category: 'product-updates' })), sendsAtOnce('cap-d')], {
      startAt,
      policy,
    });
    expect(runs.map((run) => run.sent.length)).toEqual([1, 1, 1, 1]);
    expect(runs.flatMap((run) => run.skips)).toEqual([]);
  });

  it('counts emails that reached the person before the run (a broadcast, another journey)', async () => {
    const run = await testJourney(sendsAtOnce('cap-e'), {
      startAt,
      policy: capOf('skip'),
      fakes: {
        sentBefore: [
          { category: 'journey', ago: '3 hours' },
          { category: 'journey', ago: '23 hours' },
        ],
      },
    });
    expect(run.skips.map((skip) => skip.reason)).toEqual(['frequency_cap']);
  });

  it("the policy's quiet hours hold a journey that sets none of its own", async () => {
    const policy = defineDeliveryPolicy({ quietHours: { from: '21:00', to: '08:00' } });
    const run = await testJourney(sendsAtOnce('cap-f'), { startAt: new Date('2026-12-01T22:30:00Z'), timeZone: 'Europe/Paris', policy });
    expect(run.holds.map((hold) => [hold.reason, hold.until])).toEqual([['quiet_hours', '2026-12-02T08:00+01:00']]);
    await run.advance('10 hours');
    expect(run.sent.map((email) => email.at)).toEqual([new Date('2026-12-02T07:00:00Z')]);
  });
});

describe('the program holdout of the delivery policy', () => {
  const policy = defineDeliveryPolicy({ holdout: { percent: 50, categories: ['journey'] } });
  const userIn = (heldOut: boolean) =>
    Array.from({ length: 100 }, (_, index) => `program-${index}`).find((userId) => programHoldoutArm(policy, 'journey', userId)!.holdout === heldOut)!;

  it('skips a held-out person’s email of a held category (reason holdout) and sends a treated person’s', async () => {
    const held = await testJourney(sendsAtOnce('program-a'), { startAt, policy, user: { userId: userIn(true) } });
    expect(held.sent).toEqual([]);
    expect(held.skips).toEqual([{ node: 'welcome', templateKey: 'welcome', reason: 'holdout', at: startAt }]);
    const treated = await testJourney(sendsAtOnce('program-b'), { startAt, policy, user: { userId: userIn(false) } });
    expect(treated.sent).toHaveLength(1);
  });

  it('sends a held-out person’s email of a category the holdout does not name', async () => {
    const other = await testJourney(sendsAtOnce('program-c', 'product-updates'), { startAt, policy, user: { userId: userIn(true) } });
    expect(other.sent).toHaveLength(1);
  });
});
