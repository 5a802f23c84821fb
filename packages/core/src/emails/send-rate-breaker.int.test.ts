import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { useScratchDatabase } from '../../../../test/scratch-database';
import { integrationEnv } from '../../../../test/test-env';
import { createRedis } from '../cache/redis';
import { loadConfig } from '../config/config';
import { createSendRateGovernor } from '../send-rate/send-rate-governor';
import { createEmailDeps } from './create-email-deps';
import { sendEmail } from './send-email';

/**
 * The reputation breaker's `slowed` on the send rate (docs/email.md, "Reputation breaker"): the
 * governor on the real Redis at 1 send per second, waiting for nothing in the process, so every
 * send past the first answers the moment of its slot. Its own scratch database: a tripped breaker
 * slows marketing mail to every address of its provider, which must not reach other test files.
 */
describe('a slowed reputation breaker on the send rate', () => {
  const env = integrationEnv();
  const scratch = useScratchDatabase();

  /** Five sends in `category` to provider `other` through a budget of their own: the gaps between the slots of the four deferred. */
  async function slotGaps(category: string): Promise<number[]> {
    const sendRate = createSendRateGovernor({
      redis: createRedis(env.CACHE_URL, { connectionName: 'waymark-test-send-rate' }),
      maxPerSecond: 1,
      workerShare: undefined,
      readSesMaxSendRate: async () => undefined,
      logger: pino({ level: 'silent' }),
      maxWaitMs: 0,
      prefix: `test-send-rate:${randomUUID()}`,
    });
    const config = loadConfig({ ...env, DATABASE_URL: scratch.url() });
    const email = createEmailDeps(config, { db: scratch.db(), templates: emailTemplates, categories: deploymentCategories, sendRate });
    try {
      const run = randomUUID().slice(0, 8);
      const results = [];
      for (let n = 0; n < 5; n += 1)
        results.push(
          await sendEmail(email, {
            templateKey: 'welcome',
            to: `slowed-${run}-${n}@waymark-test.example`,
            data: { firstName: 'Ada' },
            category,
            idempotencyKey: randomUUID(),
          }),
        );
      // the first takes the token there is; each of the others is deferred to its slot
      expect(results[0]?.status).toBe('sent');
      const slots = results.slice(1).map((result) => {
        if (result.status !== 'deferred') throw new Error(`expected a deferred send, got ${JSON.stringify(result)}`);
        expect(result.reason).toBe('send_rate');
        return result.retryAt.getTime();
      });
      return slots.slice(1).map((slot, n) => slot - slots[n]!);
    } finally {
      await sendRate.close();
    }
  }

  it('marketing sends to a slowed group and provider each take two slots of the budget; transactional ones to the same provider take one', async () => {
    await scratch.db().insertInto('reputationBreakers').values({ sendGroup: 'marketing', provider: 'other', state: 'slowed', since: new Date() }).execute();
    // 1 per second: a marketing send holds the next one back two seconds, a transactional one a second
    const marketing = await slotGaps('product-updates');
    const transactional = await slotGaps('transactional');
    expect(marketing).toHaveLength(3);
    for (const gap of marketing) expect(gap).toBeGreaterThan(1_800);
    expect(transactional).toHaveLength(3);
    for (const gap of transactional) {
      expect(gap).toBeGreaterThan(800);
      expect(gap).toBeLessThan(1_200);
    }
  });
});
