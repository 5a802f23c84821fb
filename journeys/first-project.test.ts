import { testJourney } from '@waymark/journey-testing';
import { holdoutArm } from '@waymark/journey';
import { describe, expect, it } from 'vitest';
import firstProject from './first-project';

const created = { projectId: 'p1', name: 'Atlas' };

describe('first-project', () => {
  it('sends tips at once and the nudge two days later to a person who has not published', async () => {
    const t = await testJourney(firstProject, { arm: 'treatment', trigger: { properties: created } });
    expect(t.holdout).toBe(false);
    expect(t.sent.map((email) => [email.templateKey, email.data])).toEqual([['first-project-tips', { projectName: 'Atlas' }]]);
    await t.advance('2 days');
    expect(t.sent.map((email) => email.templateKey)).toEqual(['first-project-tips', 'first-project-nudge']);
    expect(t.status).toBe('completed');
    expect(t.converted).toBeUndefined();
  });

  it('a person who publishes converts, leaves the run and gets no nudge', async () => {
    const t = await testJourney(firstProject, { arm: 'treatment', trigger: { properties: created } });
    await t.advance('1 day');
    await t.emit('project.published', { projectId: 'p1' });
    expect(t.converted).toMatchObject({ event: 'project.published', value: null });
    expect(t.status).toBe('exited');
    await t.advance('2 days');
    expect(t.sent.map((email) => email.templateKey)).toEqual(['first-project-tips']);
  });

  it('a held-out person runs the same clock with every email skipped (reason holdout), and converts too', async () => {
    const t = await testJourney(firstProject, { arm: 'holdout', trigger: { properties: created } });
    expect(t.holdout).toBe(true);
    await t.advance('2 days');
    expect(t.sent).toEqual([]);
    expect(t.skips.map((skip) => [skip.templateKey, skip.reason])).toEqual([
      ['first-project-tips', 'holdout'],
      ['first-project-nudge', 'holdout'],
    ]);
    expect(t.status).toBe('completed');
    await t.advance('3 days');
    await t.emit('project.published', { projectId: 'p1' });
    expect(t.converted?.event).toBe('project.published');
  });

  it('publishing after the 14-day window is no conversion', async () => {
    const t = await testJourney(firstProject, { arm: 'treatment', trigger: { properties: created } });
    await t.advance('15 days');
    await t.emit('project.published', { projectId: 'p1' });
    expect(t.converted).toBeUndefined();
  });

  it('without a forced arm the person gets the arm of the journey hash, again on re-entry', async () => {
    const userId = Array.from({ length: 50 }, (_, index) => `u-${index}`).find((id) => holdoutArm(firstProject, id)?.holdout === true)!;
    const t = await testJourney(firstProject, { user: { userId }, trigger: { properties: created } });
    expect(t.holdout).toBe(true);
    await t.advance('2 days');
    const again = await t.triggerAgain(created);
    expect(again.holdout).toBe(true);
    expect(again.sent).toEqual([]);
  });
});
