import { defineDeliveryPolicy } from '@waymark/journey';

/**
 * This installation's delivery policy (docs/journeys.md, "Timing and etiquette"): how many emails
 * one person may get per category across every journey and broadcast, which categories no cap
 * touches, and the quiet hours of journeys that set none. Checked at start-up: a category must be
 * one of journeys/categories.ts.
 */
export const deliveryPolicy = defineDeliveryPolicy({
  caps: [
    { category: 'newsletter', max: 1, per: '7d', onCap: 'skip' },
    { category: 'product-updates', max: 2, per: '7d', onCap: 'delay' },
  ],
  // lifecycle emails (onboarding, reminders, account notices) answer something the person did
  exempt: ['journey'],
});
