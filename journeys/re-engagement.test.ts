import { testJourney } from '@waymark/journey-testing';
import { describe, expect, it } from 'vitest';
import reEngagement from './re-engagement';

const inactive = (daysInactive: number) => ({ trigger: { properties: { daysInactive } } });

describe('re-engagement', () => {
  it('trigger.where: 7 days inactive is not an entry', async () => {
    const t = await testJourney(reEngagement, inactive(7));
    expect([t.status, t.skipReason]).toEqual(['not_entered', 'trigger_where']);
  });

  it('comes back within 7 days → welcome back', async () => {
    const t = await testJourney(reEngagement, inactive(30));
    expect(t.sent.map((email) => [email.templateKey, email.data])).toEqual([['reengage-we-miss-you', { daysInactive: 30 }]]);
    await t.advance('2 days');
    await t.emit('session.started');
    expect(t.sent.map((email) => email.templateKey)).toEqual(['reengage-we-miss-you', 'reengage-welcome-back']);
    expect(t.status).toBe('completed');
  });

  it('stays away → last call on its named node', async () => {
    const t = await testJourney(reEngagement, inactive(30));
    await t.advance('7 days');
    expect(t.sent.map((email) => [email.templateKey, email.node])).toEqual([
      ['reengage-we-miss-you', 'reengage-we-miss-you'],
      ['reengage-last-call', 'last-call-email'],
    ]);
    expect(t.logs.map((log) => log.node)).toContain('last-call');
  });

  it('exitOn where: only a cancellation because the account closed ends the run', async () => {
    const t = await testJourney(reEngagement, inactive(20));
    await t.emit('subscription.cancelled', { reason: 'too_expensive' });
    expect(t.status).toBe('waiting');
    await t.emit('subscription.cancelled', { reason: 'account_closed' });
    expect(t.status).toBe('exited');
    await t.advance('8 days');
    expect(t.sent).toHaveLength(1);
  });

  it('entryLimit unlimited: enters again after the previous run ended, not while it runs', async () => {
    const first = await testJourney(reEngagement, inactive(30));
    const during = await first.triggerAgain({ daysInactive: 31 });
    expect(during.skipReason).toBe('already_enrolled');
    await first.advance('7 days');
    const after = await first.triggerAgain({ daysInactive: 45 });
    // suppress.hours (48): the last call went out just now, so the new run waits for the window
    expect(after.status).toBe('waiting');
    await after.advance('2 days');
    expect(after.sent.map((email) => email.templateKey)).toEqual(['reengage-we-miss-you']);
  });
});
