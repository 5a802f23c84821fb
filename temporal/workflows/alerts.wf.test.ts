import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { withScratchDatabase } from '../../test/scratch-database';
import { createTimeSkippingEnv, workflowsPath } from '../test/time-skipping';
import { createAlertActivities } from '../activities/alerts';
import { alertEvaluationWorkflow } from './alerts';

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
          config: { alerts: { httpTimeoutMs: 2_000, allowPrivateTargets: true } },
          alertMailer: async () => undefined,
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
          config: { alerts: { httpTimeoutMs: 2_000, allowPrivateTargets: false } },
          alertMailer: async () => undefined,
        });
        const refused = await guarded.evaluateAlertRule({ ruleId: rule.id, at: new Date(history[1]!.triggeredAt.getTime() + 1_000).toISOString() });
        expect(refused).toMatchObject({ outcome: 'fired', delivered: false, error: expect.stringMatching(/refused: 127\.0\.0\.1/) });
        expect(received).toHaveLength(2);
      } finally {
        await db.destroy();
      }
    });
  });
});
