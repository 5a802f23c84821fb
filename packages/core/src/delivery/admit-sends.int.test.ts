import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { NO_DELIVERY_POLICY } from '@waymark/journey';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import { warmupDayOf } from '../deliverability/warmup';
import { createEmailDeps } from '../emails/create-email-deps';
import { deliverJourneyEmail } from '../journeys/deliver-journey-email';
import { exemptRequiredCategories } from './required-categories';
import { admissionScenarios, scenarioUserId, type AdmissionScenario } from '../../../../test/admission-scenarios';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { uniqueAddress } from '../../../../test/email-emulator';
import { integrationEnv } from '../../../../test/test-env';

/**
 * The table of delivery/admit-sends.ts through the real database path: the journey email step
 * (deliverJourneyEmail) against PostgreSQL and the SES emulator, each scenario's person written as
 * rows. temporal/simulation/admission-scenarios.test.ts runs the same table through the kit's world.
 */
describe('admitting a journey send on PostgreSQL', () => {
  const config = loadConfig(integrationEnv());
  let db: Db;
  beforeAll(() => {
    db = createDatabase({ connectionString: config.databaseUrl, max: 4 });
  });
  afterAll(() => db.destroy());

  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);

  /** A scenario's answer in production: what the journey email step answers. */
  async function databaseAnswer(scenario: AdmissionScenario): Promise<string> {
    const person = scenario.person ?? {};
    // a mailbox provider of its own for the paused breaker (icloud.com is Apple's), so no other test's sends are held
    const to = person.reputationPaused === true ? `admission-${randomUUID().slice(0, 8)}@icloud.com` : uniqueAddress('admission');
    const userId = scenarioUserId(scenario);
    const journeyId = `admission-${randomUUID()}`;
    const state = await db
      .insertInto('journeyStates')
      .values({ journeyId, userId, userEmail: to, workflowId: `wf-${randomUUID()}`, context: '{}' })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (person.suppressed !== undefined || person.unsubscribed !== undefined) {
      const categories = Array.isArray(person.unsubscribed) ? Object.fromEntries(person.unsubscribed.map((key) => [key, false])) : {};
      await db
        .insertInto('emailPreferences')
        .values({
          email: to,
          userId,
          suppressed: person.suppressed === true,
          suppressionReason: person.suppressed === true ? 'bounce' : null,
          unsubscribedAll: person.unsubscribed === 'all',
          categories: JSON.stringify(categories),
        })
        .execute();
    }
    const earlier = [
      ...(person.sentBefore ?? []).map((category) => ({ category, at: hoursAgo(1), journeyStateId: null })),
      ...(person.lastJourneyEmailHoursAgo === undefined
        ? []
        : [{ category: 'journey', at: hoursAgo(person.lastJourneyEmailHoursAgo), journeyStateId: state.id }]),
    ];
    if (earlier.length > 0)
      await db
        .insertInto('emailSends')
        .values(
          earlier.map((send) => ({
            templateKey: 'welcome',
            toEmail: to,
            fromEmail: 'tests@waymark.local',
            category: send.category,
            status: 'delivered' as const,
            journeyStateId: send.journeyStateId,
            data: '{}',
            sentAt: send.at,
            createdAt: send.at,
            updatedAt: send.at,
          })),
        )
        .execute();
    if (person.reputationPaused === true)
      await db.insertInto('reputationBreakers').values({ sendGroup: 'marketing', provider: 'apple', state: 'paused', since: new Date() }).execute();
    if (person.warmupSpent === true)
      await sql`insert into warmup_days (day, used) values (${warmupDayOf(new Date())}::date, 1000000) on conflict (day) do update set used = 1000000`.execute(
        db,
      );
    try {
      const deps = createEmailDeps(config, {
        db,
        templates: emailTemplates,
        categories: deploymentCategories,
        // as the runtime applies the policy: required categories exempt (runtime/runtime.ts)
        deliveryPolicy: exemptRequiredCategories(scenario.policy ?? NO_DELIVERY_POLICY, deploymentCategories),
      });
      const outcome = await deliverJourneyEmail(deps, {
        stateId: state.id,
        journeyId,
        userId,
        userEmail: to,
        templateKey: 'welcome',
        nodeId: 'welcome',
        data: { firstName: 'Ada' },
        category: scenario.send.category,
        idempotencyKey: `admission:${randomUUID()}`,
        ...(scenario.send.suppressHours === undefined ? {} : { suppressHours: scenario.send.suppressHours }),
        ...(scenario.send.holdout === undefined ? {} : { holdout: scenario.send.holdout }),
      });
      if (outcome.status === 'sent') return 'send';
      if (outcome.status === 'skipped') return `skip:${outcome.reason}`;
      if (outcome.status === 'deferred') return `defer:${outcome.reason}`;
      return `failed:${outcome.reason}`;
    } finally {
      if (person.reputationPaused === true)
        await db.deleteFrom('reputationBreakers').where('sendGroup', '=', 'marketing').where('provider', '=', 'apple').execute();
      if (person.warmupSpent === true) await sql`delete from warmup_days where day = ${warmupDayOf(new Date())}::date`.execute(db);
    }
  }

  it.each(admissionScenarios)('$name → $expected', async (scenario) => {
    expect(await databaseAnswer(scenario)).toBe(scenario.expected);
  });
});
