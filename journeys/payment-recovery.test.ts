import { testJourney } from '@waymark/journey-testing';
import { describe, expect, it } from 'vitest';
import paymentRecovery from './payment-recovery';

describe('payment-recovery', () => {
  it('no recovery → the notice, then the final notice a week later', async () => {
    const t = await testJourney(paymentRecovery, { trigger: { properties: { amount: '$49.00' } } });
    expect(t.sent.map((email) => [email.templateKey, email.data])).toEqual([['payment-failed', { amount: '$49.00' }]]);
    await t.advance('7 days');
    expect(t.sent.map((email) => [email.templateKey, email.node])).toEqual([
      ['payment-failed', 'payment-failed'],
      ['payment-final-notice', 'final-notice'],
    ]);
    expect(t.status).toBe('completed');
  });

  it('exitOn where while waiting: past_due does not exit, active does, and nothing more is sent', async () => {
    const t = await testJourney(paymentRecovery);
    await t.advance('2 days');
    await t.emit('subscription.updated', { status: 'past_due' });
    expect(t.status).toBe('waiting');
    await t.emit('subscription.updated', { status: 'active' });
    expect(t.status).toBe('exited');
    await t.advance('7 days');
    expect(t.sent.map((email) => email.templateKey)).toEqual(['payment-failed']);
  });

  it('a send outage that outlasts the retries fails the run with its reason', async () => {
    const t = await testJourney(paymentRecovery, { fakes: { sendOutage: 'SES unreachable' } });
    expect(t.status).toBe('failed');
    expect(t.error).toContain('SES unreachable');
  });
});
