import { describe, expect, it } from 'vitest';
import { defineJourney } from '@waymark/journey';
import { testJourney } from './test-journey';

/**
 * A journey waiting for a click, on the runner the worker runs (docs/email.md, "Machine opens and
 * clicks"): a scanner's click does not move it, a person's does; an author who asks for machine
 * clicks in the `where` gets them.
 */
describe('waitForEvent and machine clicks', () => {
  const waitsForClick = (where?: { type: 'property'; property: string; operator: 'eq'; value: unknown }[]) =>
    defineJourney({
      id: 'waits-for-click',
      name: 'Waits for a click',
      description: 'test journey',
      trigger: { event: 'user.signed_up' },
      async run(ctx) {
        await ctx.sendEmail('welcome');
        const click = await ctx.waitForEvent('email.link_clicked', { timeout: '3 days', ...(where === undefined ? {} : { where }) });
        await ctx.sendEmail(click === undefined ? 'welcome-getting-started' : 'welcome-tips');
      },
    });
  const machine = (machineReason: string) => ({ linkUrl: 'https://app.example.com/', machine: true, machineReason });

  it('scanner clicks of every kind leave it waiting; the person’s click after them moves it', async () => {
    const t = await testJourney(waitsForClick());
    for (const reason of ['head_request', 'scanner_user_agent', 'too_fast', 'honeypot']) await t.emit('email.link_clicked', machine(reason));
    expect(t.status).toBe('waiting');
    await t.emit('email.link_clicked', { linkUrl: 'https://app.example.com/', machine: false, machineReason: null });
    expect(t.sent.map((email) => email.templateKey)).toEqual(['welcome', 'welcome-tips']);
    expect(t.status).toBe('completed');
  });

  it('a where that names machine opts in', async () => {
    const t = await testJourney(waitsForClick([{ type: 'property', property: 'machine', operator: 'eq', value: true }]));
    await t.emit('email.link_clicked', machine('head_request'));
    expect(t.sent.map((email) => email.templateKey)).toEqual(['welcome', 'welcome-tips']);
  });
});
