import { stopJourneyTestServer, testJourney } from '@waymark/journey/testing';
import { afterAll, describe, expect, it } from 'vitest';
import welcomeSeries from './welcome-series';

afterAll(stopJourneyTestServer);

describe('welcome-series', () => {
  it('welcomes, then after two days nudges a user without a project', async () => {
    const t = await testJourney(welcomeSeries, { trigger: { properties: { firstName: 'Ada' } } });
    expect(t.sent.map((email) => [email.templateKey, email.data])).toEqual([['welcome', { firstName: 'Ada' }]]);
    expect(t.status).toBe('waiting');
    await t.advance('2 days');
    expect(t.sent.map((email) => [email.templateKey, email.node])).toEqual([
      ['welcome', 'welcome'],
      ['welcome-getting-started', 'nudge'],
    ]);
    expect(t.sent[1]!.at.getTime() - t.sent[0]!.at.getTime()).toBeGreaterThanOrEqual(2 * 86_400_000);
    expect(t.status).toBe('completed');
  });

  it('sends power-user tips when a project was created since entry', async () => {
    const t = await testJourney(welcomeSeries);
    await t.advance('1 day');
    await t.emit('project.created', { name: 'Apollo' });
    await t.advance('1 day');
    expect(t.sent.map((email) => email.templateKey)).toEqual(['welcome', 'welcome-tips']);
  });

  it('exits on user.deleted while waiting and sends nothing more', async () => {
    const t = await testJourney(welcomeSeries);
    await t.emit('user.deleted');
    expect(t.status).toBe('exited');
    await t.advance('3 days');
    expect(t.sent.map((email) => email.templateKey)).toEqual(['welcome']);
  });
});
