import { z } from 'zod';
import { nullableTimestamp } from './common';

/**
 * The reputation breaker's state per category group and mailbox provider, as
 * GET /v1/admin/deliverability answers it (docs/email.md, "Reputation breaker").
 */
export const breakerStateSchema = z
  .object({
    group: z.enum(['marketing', 'transactional']).describe('marketing: every category that is not required; transactional: the required ones'),
    provider: z.enum(['gmail', 'yahoo', 'microsoft', 'apple', 'other']).describe("the recipients' mailbox provider, by recipient domain"),
    state: z
      .enum(['ok', 'slowed', 'paused'])
      .describe('slowed: over the slow thresholds (alerted and audited); paused: its marketing sends to the provider are held'),
    sends: z.number().int().describe('sends of the group to the provider in the rolling window'),
    bounceRate: z.number().describe('bounces per send in the window (0–1)'),
    complaintRate: z.number().describe('complaints per send in the window (0–1)'),
    since: nullableTimestamp.describe('when the state began (null: never changed)'),
  })
  .meta({ id: 'ReputationBreakerState' });
