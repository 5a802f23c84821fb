import { testJourney } from '@waymark/journey-testing';
import { describe, expect, it } from 'vitest';
import trialConversion from './trial-conversion';

const HOUR = 3_600_000;
const pro = { trigger: { properties: { plan: 'pro' } } };

describe('trial-conversion', () => {
  it('trigger.where: a free-plan trial is not an entry', async () => {
    const t = await testJourney(trialConversion, { trigger: { properties: { plan: 'free' } } });
    expect(t.status).toBe('not_entered');
    expect(t.skipReason).toBe('trigger_where');
    expect(t.logs).toEqual([]);
  });

  it('pricing viewed during the wait → pricing follow-up', async () => {
    const t = await testJourney(trialConversion, pro);
    expect(t.sent.map((email) => [email.templateKey, email.data])).toEqual([['trial-welcome', { plan: 'pro' }]]);
    await t.advance('4 days');
    expect(t.status).toBe('waiting');
    await t.emit('pricing.viewed');
    expect(t.sent.map((email) => email.templateKey)).toEqual(['trial-welcome', 'trial-pricing-followup']);
    expect(t.status).toBe('completed');
  });

  it('no pricing view within the 4-day wait → last chance', async () => {
    const t = await testJourney(trialConversion, { trigger: { properties: { plan: 'team' } } });
    await t.advance('7 days');
    expect(t.sent.map((email) => [email.templateKey, email.data])).toEqual([
      ['trial-welcome', { plan: 'team' }],
      ['trial-last-chance', { plan: 'team' }],
    ]);
    expect(t.logs.map((log) => log.action)).toContain('wait_timeout');
  });

  it('a pricing view during the first 3 days does not count for the wait', async () => {
    const t = await testJourney(trialConversion, pro);
    await t.advance('1 day');
    await t.emit('pricing.viewed');
    await t.advance('6 days');
    expect(t.sent.map((email) => email.templateKey)).toEqual(['trial-welcome', 'trial-last-chance']);
  });

  it('exits on subscription.started, wherever the user is', async () => {
    const t = await testJourney(trialConversion, pro);
    await t.advance('5 days');
    await t.emit('subscription.started', { plan: 'pro' });
    expect(t.status).toBe('exited');
    await t.advance('5 days');
    expect(t.sent.map((email) => email.templateKey)).toEqual(['trial-welcome']);
  });

  it('entryLimit once: a second trial of the same user does not enter', async () => {
    const first = await testJourney(trialConversion, pro);
    const second = await first.triggerAgain({ plan: 'pro' });
    expect(second.skipReason).toBe('entry_limit');
  });

  it('suppress.hours: a journey email 2 hours ago defers the welcome until 24 hours have passed', async () => {
    const t = await testJourney(trialConversion, { ...pro, fakes: { lastEmailAgo: '2 hours' } });
    const enteredAt = await t.now();
    expect(t.sent).toEqual([]);
    expect(t.status).toBe('waiting');
    await t.advance('23 hours');
    expect(t.sent.map((email) => email.templateKey)).toEqual(['trial-welcome']);
    expect(t.sent[0]!.at.getTime() - enteredAt.getTime()).toBeGreaterThan(22 * HOUR - 60_000);
    expect(t.sent[0]!.at.getTime() - enteredAt.getTime()).toBeLessThan(23 * HOUR);
  });
});
