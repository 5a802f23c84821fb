import { describe, expect, it } from 'vitest';
import { defineJourney } from '@waymark/journey';
import { testJourney } from './test-journey';

/**
 * A journey's `category` (docs/email.md, "Preference categories"): its emails go out in that
 * category and its entry asks that category's preference; without one, both use `journey`.
 */
describe('journey category', () => {
  const journey = (category?: string) =>
    defineJourney({
      id: 'digest',
      name: 'Digest',
      description: 'test journey',
      trigger: { event: 'user.signed_up' },
      ...(category === undefined ? {} : { category }),
      async run(ctx) {
        await ctx.sendEmail('welcome');
        await ctx.sendEmail('welcome-tips', { category: 'journey' });
      },
    });

  it('sends in the journey’s category unless a send names another', async () => {
    const t = await testJourney(journey('newsletter'));
    expect(t.sent.map((email) => [email.templateKey, email.category])).toEqual([
      ['welcome', 'newsletter'],
      ['welcome-tips', 'journey'],
    ]);
    expect((await testJourney(journey())).sent.map((email) => email.category)).toEqual(['journey', 'journey']);
  });

  it('refuses entry to someone who left the journey’s category, and only that one', async () => {
    const left = await testJourney(journey('newsletter'), { fakes: { unsubscribed: ['newsletter'] } });
    expect([left.status, left.skipReason]).toEqual(['not_entered', 'category_unsubscribed']);
    const other = await testJourney(journey('newsletter'), { fakes: { unsubscribed: ['journey'] } });
    expect(other.status).not.toBe('not_entered');
  });

  it('a held-out person still gets a required category’s emails (docs/journeys.md, "Goals, holdouts and lift")', async () => {
    const measured = defineJourney({
      id: 'orders',
      name: 'Orders',
      description: 'test journey',
      trigger: { event: 'user.signed_up' },
      holdout: { percent: 50 },
      async run(ctx) {
        await ctx.sendEmail('welcome');
        await ctx.sendEmail('order-receipt', { category: 'transactional', data: { orderId: 'o1', items: [{ name: 'Pro', quantity: 1, price: 29 }] } });
      },
    });
    const t = await testJourney(measured, { arm: 'holdout' });
    expect(t.sent.map((email) => email.templateKey)).toEqual(['order-receipt']);
    expect(t.skips.map((skip) => [skip.templateKey, skip.reason])).toEqual([['welcome', 'holdout']]);
  });
});
