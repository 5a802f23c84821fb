import { testJourney } from '@waymark/journey-testing';
import { describe, expect, it } from 'vitest';
import welcomeSeries from './welcome-series';

const DAY = 86_400_000;

describe('welcome-series', () => {
  it('welcomes, then after two days nudges a user without a project', async () => {
    const t = await testJourney(welcomeSeries, { user: { userId: 'u_ada', email: 'ada@example.com' }, trigger: { properties: { firstName: 'Ada' } } });
    expect(t.sent.map((email) => [email.templateKey, email.data])).toEqual([['welcome', { firstName: 'Ada' }]]);
    expect(t.status).toBe('waiting');
    await t.advance('2 days');
    expect(t.sent.map((email) => [email.templateKey, email.node])).toEqual([
      ['welcome', 'welcome'],
      ['welcome-getting-started', 'nudge'],
    ]);
    expect(t.sent[1]!.at.getTime() - t.sent[0]!.at.getTime()).toBeGreaterThanOrEqual(2 * DAY);
    expect(t.status).toBe('completed');
    expect(t.logs.map((log) => log.action)).toEqual(['entered', 'email_sent', 'waiting', 'resumed', 'email_sent', 'completed']);
  });

  it('sends power-user tips when a project was created since entry', async () => {
    const t = await testJourney(welcomeSeries);
    await t.advance('1 day');
    await t.emit('project.created', { projectId: 'p1', name: 'Apollo' });
    await t.advance('1 day');
    expect(t.sent.map((email) => [email.templateKey, email.node])).toEqual([
      ['welcome', 'welcome'],
      ['welcome-tips', 'tips'],
    ]);
  });

  it('a project created before the sign-up does not count (since entry)', async () => {
    const t = await testJourney(welcomeSeries, { fakes: { events: [{ name: 'project.created', ago: '1 hour' }] } });
    await t.advance('2 days');
    expect(t.sent.map((email) => email.templateKey)).toEqual(['welcome', 'welcome-getting-started']);
  });

  it('exits on user.deleted while waiting and sends nothing more', async () => {
    const t = await testJourney(welcomeSeries);
    await t.emit('user.deleted');
    expect(t.status).toBe('exited');
    await t.advance('3 days');
    expect(t.sent.map((email) => email.templateKey)).toEqual(['welcome']);
    expect(t.logs.at(-1)).toMatchObject({ action: 'exited' });
  });

  it('entryLimit once: a second sign-up of the same user does not enter again', async () => {
    const first = await testJourney(welcomeSeries);
    await first.advance('2 days');
    const second = await first.triggerAgain();
    expect(second.status).toBe('not_entered');
    expect(second.skipReason).toBe('entry_limit');
    expect(second.sent).toEqual([]);
  });

  it('a suppressed or journey-unsubscribed address is not enrolled', async () => {
    const suppressed = await testJourney(welcomeSeries, { fakes: { suppressed: true } });
    expect([suppressed.status, suppressed.skipReason]).toEqual(['not_entered', 'suppressed']);
    const unsubscribed = await testJourney(welcomeSeries, { fakes: { unsubscribed: ['journey'] } });
    expect([unsubscribed.status, unsubscribed.skipReason]).toEqual(['not_entered', 'category_unsubscribed']);
  });
});
