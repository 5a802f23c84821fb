import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { holdoutArm, NO_DELIVERY_POLICY } from '@waymark/journey';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import { warmupDayOf } from '../deliverability/warmup';
import { broadcastSkipReason } from '../broadcasts/broadcast-chunk';
import { runBroadcastStep } from '../broadcasts/broadcast-run';
import { createBroadcast } from '../broadcasts/broadcasts';
import { createEmailDeps } from '../emails/create-email-deps';
import type { EmailDeps } from '../emails/email-deps';
import { deliverJourneyEmail } from '../journeys/deliver-journey-email';
import { exemptRequiredCategories } from './required-categories';
import { admissionScenarios, firstHeldOut, scenarioUserId, type AdmissionScenario } from '../../../../test/admission-scenarios';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { uniqueAddress } from '../../../../test/email-emulator';
import { seedList } from '../../../../test/seed-list';
import { integrationEnv } from '../../../../test/test-env';

/**
 * The table of delivery/admit-sends.ts through the real database by both send paths: the journey
 * email step (deliverJourneyEmail) and a broadcast's chunk (runBroadcastStep), against PostgreSQL
 * and the SES emulator, each scenario's person written as rows.
 * temporal/simulation/admission-scenarios.test.ts runs the same table through the kit's world.
 */
describe('admitting a send on PostgreSQL', () => {
  const config = loadConfig(integrationEnv());
  let db: Db;
  beforeAll(() => {
    db = createDatabase({ connectionString: config.databaseUrl, max: 4 });
  });
  afterAll(() => db.destroy());

  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);

  /** The address of a scenario's person: a mailbox provider of its own for the paused breaker (icloud.com is Apple's), so no other test's sends are held. */
  const addressFor = (scenario: AdmissionScenario) =>
    scenario.person?.reputationPaused === true ? `admission-${randomUUID().slice(0, 8)}@icloud.com` : uniqueAddress('admission');

  /**
   * Writes what the scenario's person is as rows, runs `send` (the path's answer), then takes
   * back the rows every test shares (the breaker, the warm-up day). `journeyStateId`: the state a
   * journey email of the person's belongs to.
   */
  async function withPerson(
    scenario: AdmissionScenario,
    who: { to: string; userId: string; journeyStateId: string | null },
    send: (deps: EmailDeps) => Promise<string>,
  ): Promise<string> {
    const person = scenario.person ?? {};
    const { to, userId } = who;
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
        : [{ category: 'journey', at: hoursAgo(person.lastJourneyEmailHoursAgo), journeyStateId: who.journeyStateId }]),
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
      return await send(deps);
    } finally {
      if (person.reputationPaused === true)
        await db.deleteFrom('reputationBreakers').where('sendGroup', '=', 'marketing').where('provider', '=', 'apple').execute();
      if (person.warmupSpent === true) await sql`delete from warmup_days where day = ${warmupDayOf(new Date())}::date`.execute(db);
    }
  }

  /** A scenario's answer in production's journey path: what the journey email step answers. */
  async function journeyAnswer(scenario: AdmissionScenario): Promise<string> {
    const to = addressFor(scenario);
    const userId = scenarioUserId(scenario);
    const journeyId = `admission-${randomUUID()}`;
    const state = await db
      .insertInto('journeyStates')
      .values({ journeyId, userId, userEmail: to, workflowId: `wf-${randomUUID()}`, context: '{}' })
      .returning('id')
      .executeTakeFirstOrThrow();
    return withPerson(scenario, { to, userId, journeyStateId: state.id }, async (deps) => {
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
    });
  }

  /**
   * A scenario's answer in production's broadcast path: a broadcast to the person alone (its
   * category the scenario's, its own holdout the scenario's `holdout`) through its audience
   * snapshot and its chunk, read from what the broadcast shows: the recipient's status and
   * reason, or, while it is still pending, why (paused by the breaker, the warm-up's next day, a
   * `delay` cap's later send time).
   */
  async function broadcastAnswer(scenario: AdmissionScenario): Promise<string> {
    const to = addressFor(scenario);
    const { listKey, contacts } = await seedList(db, [{ email: to }]);
    const templates = createEmailDeps(config, { db, templates: emailTemplates, categories: deploymentCategories }).templates;
    const broadcast = await createBroadcast(
      { db, templates, categories: deploymentCategories },
      { name: `Admission ${randomUUID().slice(0, 8)}`, templateKey: 'reengage-we-miss-you', category: 'journey', audience: { listKey }, data: {} },
      null,
    );
    // a user id of this run's own (a contact's is unique), held out by the broadcast's 50 % when the scenario says so
    const prefix = `admission-${randomUUID().slice(0, 8)}`;
    const holdoutPercent = scenario.send.holdout === true ? 50 : 0;
    const userId =
      holdoutPercent > 0
        ? firstHeldOut(prefix, (id) => holdoutArm({ id: broadcast.id, holdout: { percent: holdoutPercent } }, id)?.holdout === true)
        : scenarioUserId(scenario, prefix);
    await db.updateTable('contacts').set({ externalId: userId }).where('id', '=', contacts[0]!.id).execute();
    // the scenario's category as a broadcast row holds it: the create refuses a required one, which
    // a deployment may declare after the broadcast was made
    await db
      .updateTable('broadcasts')
      .set({ category: scenario.send.category, holdoutPercent, status: 'sending', sendRequestedAt: new Date() })
      .where('id', '=', broadcast.id)
      .execute();
    return withPerson(scenario, { to, userId, journeyStateId: null }, async (email) => {
      const now = new Date();
      const deps = { email, defaultTimeZone: 'UTC' };
      await runBroadcastStep(deps, broadcast.id, now); // the audience snapshot
      await runBroadcastStep(deps, broadcast.id, now); // the chunk
      const row = await db.selectFrom('broadcasts').select(['status', 'pausedReason', 'warmupUntil']).where('id', '=', broadcast.id).executeTakeFirstOrThrow();
      const recipient = await db
        .selectFrom('broadcastRecipients')
        .select(['status', 'reason', 'sendAt'])
        .where('broadcastId', '=', broadcast.id)
        .executeTakeFirstOrThrow();
      if (recipient.status === 'sent') return 'send';
      if (recipient.status !== 'pending') return `${recipient.status === 'skipped' ? 'skip' : recipient.status}:${recipient.reason}`;
      if (row.status === 'paused' && row.pausedReason === 'reputation') return 'defer:reputation';
      if (row.warmupUntil !== null && recipient.sendAt?.getTime() === row.warmupUntil.getTime()) return 'defer:warmup';
      if (recipient.sendAt !== null && recipient.sendAt > now) return 'defer:frequency_cap';
      return `pending (broadcast ${row.status})`;
    });
  }

  /** What a broadcast records of the answer: the gate's reasons fold into `suppressed` and `unsubscribed` (docs/broadcasts.md, "Who is skipped"). */
  const asBroadcastRecords = (expected: string) => (expected.startsWith('skip:') ? `skip:${broadcastSkipReason(expected.slice('skip:'.length))}` : expected);

  describe('by the journey email step', () => {
    it.each(admissionScenarios)('$name → $expected', async (scenario) => {
      expect(await journeyAnswer(scenario)).toBe(scenario.expected);
    });
  });

  describe('by a broadcast chunk', () => {
    it.each(admissionScenarios.filter((scenario) => scenario.journeyOnly === undefined))('$name → $expected', async (scenario) => {
      expect(await broadcastAnswer(scenario)).toBe(asBroadcastRecords(scenario.expected));
    });
  });
});
