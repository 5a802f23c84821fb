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

const rate = (what: string) => z.number().describe(`${what} (0–1)`);

/**
 * The breaker's settings in force, so a reader of its states (the studio's Settings →
 * Deliverability and a paused broadcast's notice) can say when it acts and when it resumes
 * without knowing this installation's environment.
 */
export const breakerSettingsSchema = z
  .object({
    cooldownHours: z.number().describe('REPUTATION_COOLDOWN_HOURS: hours under the slow thresholds before a tripped breaker resumes by itself'),
    windowHours: z.number().int().describe("REPUTATION_WINDOW_HOURS: the rates' rolling window"),
    minSends: z.number().int().describe('REPUTATION_MIN_SENDS: sends a group and provider need in the window before the breaker judges them'),
    thresholds: z
      .object({
        slowComplaintRate: rate('complaints per send from which a breaker is slowed'),
        slowBounceRate: rate('bounces per send from which a breaker is slowed'),
        pauseComplaintRate: rate('complaints per send from which a breaker is paused'),
        pauseBounceRate: rate('bounces per send from which a breaker is paused'),
      })
      .describe("the delivery policy's `reputation` thresholds, its unset ones at their defaults"),
  })
  .meta({ id: 'ReputationBreakerSettings' });
