import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePreferenceCategories } from '@waymark/email/preference-categories';
import { categories } from '@waymark/journeys/categories';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { NO_DELIVERY_POLICY } from '@waymark/journey';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { breakerSettingsOf } from '@waymark/core/deliverability/breaker';
import { createEmailDeps } from '@waymark/core/emails/create-email-deps';
import type { BackgroundJobs } from '@waymark/core/jobs/background-jobs';
import { deliverJourneyEmail } from '@waymark/core/journeys/deliver-journey-email';
import { welcomeJourneyEmail } from '../../test/journey-states';
import { withScratchDatabase } from '../../test/scratch-database';
import { integrationEnv } from '../../test/test-env';
import { createTimeSkippingEnv, workflowsPath } from '../test/time-skipping';
import { createAlertActivities } from '../activities/alerts';
import { alertEvaluationWorkflow } from './alerts';

/** The broadcasts' run as a recorder: these tests drive no broadcast workflow, only its row's transitions. */
function recordingJobs(notified: string[] = []): BackgroundJobs {
  return {
    start: async () => undefined,
    status: async () => 'not_found',
    progress: async () => null,
    cancel: async () => undefined,
    notify: async (_kind, id) => void notified.push(id),
  };
}

/** The reputation breaker's judge of a test database: the default thresholds, REPUTATION_* as `env` says. */
function reputationOf(db: Db, databaseUrl: string, env: Record<string, string> = {}, jobs = recordingJobs()) {
  const config = loadConfig({ ...integrationEnv(), DATABASE_URL: databaseUrl, ...env });
  const email = createEmailDeps(config, { db, templates: emailTemplates, categories: definePreferenceCategories(categories) });
  return { email, reputation: { db, settings: breakerSettingsOf(config, NO_DELIVERY_POLICY), states: email.breakerStates, jobs } };
}

describe('alert evaluation (time-skipping, real database, local webhook receiver)', () => {
  let env: TestWorkflowEnvironment;
  let receiver: Server;
  let receiverUrl: string;
  const received: { alert: { ruleId: string; currentValue: number; threshold: number }; text: string }[] = [];

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        received.push(JSON.parse(body));
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver?.close(resolve));
    await env?.teardown();
  });

  async function seedBounces(db: Db, at: Date, sent: number, bounced: number): Promise<void> {
    await db
      .insertInto('emailSends')
      .values(
        Array.from({ length: sent }, (_, i) => ({
          templateKey: 't',
          fromEmail: 'f@x.io',
          toEmail: `r${i}@x.io`,
          status: i < bounced ? ('bounced' as const) : ('delivered' as const),
          sentAt: at,
          ...(i < bounced ? { bouncedAt: at } : { deliveredAt: at }),
        })),
      )
      .execute();
  }

  it('fires past the threshold, stays quiet inside the cooldown, fires again after it; the SSRF guard refuses loopback by default', async () => {
    await withScratchDatabase(async (databaseUrl) => {
      const db = createDatabase({ connectionString: databaseUrl, max: 4 });
      try {
        const taskQueue = `alerts-${randomUUID()}`;
        const activities = createAlertActivities({
          db,
          config: { alerts: { httpTimeoutMs: 2_000, allowPrivateTargets: true }, encryptionKeys: undefined },
          alertMailer: async () => undefined,
          reputation: reputationOf(db, databaseUrl).reputation,
        });
        const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath, activities });
        const rule = await db
          .insertInto('alertRules')
          .values({
            name: 'bounces',
            type: 'bounce_rate_exceeded',
            threshold: 0.05,
            channel: 'webhook',
            channelConfig: JSON.stringify({ url: receiverUrl }),
            cooldownMinutes: 60,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        const quiet = await db
          .insertInto('alertRules')
          .values({ name: 'complaints', type: 'high_complaint_rate', threshold: 0.01, channel: 'webhook', channelConfig: JSON.stringify({ url: receiverUrl }) })
          .returning('id')
          .executeTakeFirstOrThrow();
        // a plain client keeps time skipping locked while a run executes (env.client would let the
        // server jump ahead while an activity is busy); time moves only through env.sleep below
        const client = new Client({ connection: env.connection, namespace: env.namespace ?? 'default' });
        const run = () => client.workflow.execute(alertEvaluationWorkflow, { taskQueue, workflowId: randomUUID() });

        await worker.runUntil(async () => {
          await seedBounces(db, new Date(await env.currentTimeMs()), 10, 2);
          const first = await run();
          expect(first).toEqual(
            expect.arrayContaining([
              { ruleId: rule.id, outcome: 'fired', value: 0.2, delivered: true },
              { ruleId: quiet.id, outcome: 'ok', value: 0 },
            ]),
          );
          expect(received).toHaveLength(1);
          expect(received[0]!.alert).toMatchObject({ ruleId: rule.id, currentValue: 0.2, threshold: 0.05 });

          await env.sleep('30 minutes');
          const second = await run();
          expect(second).toContainEqual({ ruleId: rule.id, outcome: 'cooldown' });
          expect(received).toHaveLength(1);

          await env.sleep('31 minutes');
          // the first sends are now outside the one-hour window; fresh bounces within it
          await seedBounces(db, new Date(await env.currentTimeMs()), 4, 1);
          const third = await run();
          expect(third).toContainEqual({ ruleId: rule.id, outcome: 'fired', value: 0.25, delivered: true });
          expect(received).toHaveLength(2);
        });

        const history = await db.selectFrom('alertHistory').selectAll().where('ruleId', '=', rule.id).orderBy('triggeredAt').execute();
        expect(history.map((row) => [row.currentValue, row.delivered])).toEqual([
          [0.2, true],
          [0.25, true],
        ]);
        const stored = await db.selectFrom('alertRules').select('lastTriggeredAt').where('id', '=', rule.id).executeTakeFirstOrThrow();
        expect(stored.lastTriggeredAt?.getTime()).toBe(history[1]!.triggeredAt.getTime());

        // same rule, default configuration: loopback is refused, recorded as undelivered
        await db.updateTable('alertRules').set({ lastTriggeredAt: null }).execute();
        const guarded = createAlertActivities({
          db,
          config: { alerts: { httpTimeoutMs: 2_000, allowPrivateTargets: false }, encryptionKeys: undefined },
          alertMailer: async () => undefined,
          reputation: reputationOf(db, databaseUrl).reputation,
        });
        const refused = await guarded.evaluateAlertRule({ ruleId: rule.id, at: new Date(history[1]!.triggeredAt.getTime() + 1_000).toISOString() });
        expect(refused).toMatchObject({ outcome: 'fired', delivered: false, error: expect.stringMatching(/refused: 127\.0\.0\.1/) });
        expect(received).toHaveLength(2);
      } finally {
        await db.destroy();
      }
    });
  });

  it('ends a tripped reputation breaker on the schedule once its window has been clean for the cooldown, with no SES event: audited, alerted, its held mail released', async () => {
    await withScratchDatabase(async (databaseUrl) => {
      const db = createDatabase({ connectionString: databaseUrl, max: 4 });
      try {
        const taskQueue = `alerts-${randomUUID()}`;
        const run = randomUUID().slice(0, 8);
        const notified: string[] = [];
        const { email, reputation } = reputationOf(db, databaseUrl, { REPUTATION_COOLDOWN_HOURS: '6' }, recordingJobs(notified));
        const activities = createAlertActivities({
          db,
          config: { alerts: { httpTimeoutMs: 2_000, allowPrivateTargets: true }, encryptionKeys: undefined },
          alertMailer: async () => undefined,
          reputation,
        });
        const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath, activities });
        await db
          .insertInto('alertRules')
          .values({ name: 'complaints', type: 'high_complaint_rate', threshold: 0.5, channel: 'webhook', channelConfig: JSON.stringify({ url: receiverUrl }) })
          .execute();
        const client = new Client({ connection: env.connection, namespace: env.namespace ?? 'default' });
        const evaluate = () => client.workflow.execute(alertEvaluationWorkflow, { taskQueue, workflowId: randomUUID() });

        // paused 30 h ago: the complaints that tripped it have left the 24 h window, and no mail of its own flows to bring an event
        const start = await env.currentTimeMs();
        await db
          .insertInto('reputationBreakers')
          .values({ sendGroup: 'marketing', provider: 'other', state: 'paused', since: new Date(start - 30 * 3_600_000) })
          .execute();
        const to = `held-${run}@waymark-test.example`;
        const journeyEmail = await welcomeJourneyEmail(db, to, run);
        expect(await deliverJourneyEmail(email, journeyEmail)).toMatchObject({ status: 'deferred', reason: 'reputation' });
        const broadcast = await db
          .insertInto('broadcasts')
          .values({
            name: `held ${run}`,
            templateKey: 'reengage-we-miss-you',
            category: 'newsletter',
            audience: JSON.stringify({ all: true }),
            status: 'paused',
            pausedFrom: 'sending',
            pausedReason: 'reputation',
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        const breaker = () => db.selectFrom('reputationBreakers').select(['state', 'clearSince']).executeTakeFirstOrThrow();
        const heard = received.length;

        await worker.runUntil(async () => {
          // the first pass finds the window clean and starts the cooldown
          await evaluate();
          expect(await breaker()).toMatchObject({ state: 'paused', clearSince: expect.any(Date) });
          await env.sleep('5 hours');
          await evaluate();
          expect((await breaker()).state).toBe('paused');
          await env.sleep('1 hour');
          await evaluate();
        });

        expect((await breaker()).state).toBe('ok');
        const audit = await db.selectFrom('auditLogs').select(['action', 'resourceId', 'detail']).where('resource', '=', 'deliverability').execute();
        expect(audit).toEqual([
          { action: 'resume', resourceId: 'marketing/other', detail: expect.objectContaining({ from: 'paused', to: 'ok', cause: 'cooldown' }) },
        ]);
        expect(received.slice(heard).map((alert) => alert.text)).toEqual([expect.stringContaining('marketing/other: paused → ok')]);
        expect(await db.selectFrom('broadcasts').select(['status', 'pausedReason']).where('id', '=', broadcast.id).executeTakeFirstOrThrow()).toEqual({
          status: 'sending',
          pausedReason: null,
        });
        expect(notified).toEqual([broadcast.id]);
        // the held journey email's next look sends it
        expect(await deliverJourneyEmail(email, journeyEmail)).toMatchObject({ status: 'sent' });
      } finally {
        await db.destroy();
      }
    });
  });
});
