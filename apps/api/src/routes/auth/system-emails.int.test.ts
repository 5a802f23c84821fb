import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase } from '@waymark/core/db/database';
import { createLogger } from '@waymark/core/logging/logger';
import { hashToken } from '@waymark/core/tokens/tokens';
import { systemEmailWorkflowId } from '@waymark/temporal/system-email';
import { createWorker } from '../../../../worker/src/worker';
import { createTestAdmin, invitationTokenFor, resetTokenFor, SessionClient } from '../../../../../test/auth-client';
import { emailsTo, uniqueAddress } from '../../../../../test/email-emulator';
import { freePort } from '../../../../../test/free-port';
import { releaseTaskQueue } from '../../../../../test/task-queue-cleanup';
import { startTestApi, type TestApi } from '../../../../../test/test-api';
import { integrationEnv } from '../../../../../test/test-env';

describe('reset and invitation emails are workflow runs: an api restart before the send loses nothing', () => {
  // a queue no worker polls until the first api is gone, so the send cannot happen before the restart
  const queue = `system-email-${randomUUID()}`;
  const apis: TestApi[] = [];
  afterAll(async () => {
    for (const api of apis) await api.close().catch(() => undefined);
    await releaseTaskQueue(integrationEnv().TEMPORAL_ADDRESS ?? '127.0.0.1:7233', queue);
  });

  it('each email arrives once after the restart, and the run history never holds the link', async () => {
    const first = await startTestApi({ TEMPORAL_TASK_QUEUE: queue });
    apis.push(first);
    const admin = await createTestAdmin(first, 'durable-reset');
    const owner = new SessionClient(first);
    expect((await owner.signIn(admin.email, admin.password)).status).toBe(200);
    // the oldest organization, which every administrator joins (other test files fill the five-organization limit)
    const orgId = (await owner.request('GET', '/api/auth/organization/list')).body.organizations[0].id as string;
    const invitee = uniqueAddress('durable-invite');

    const requested = await new SessionClient(first).request('POST', '/api/auth/request-password-reset', { body: { email: admin.email } });
    expect(requested.status).toBe(200);
    const invited = await owner.request('POST', `/api/auth/organization/${orgId}/invite`, { body: { email: invitee, role: 'viewer' } });
    expect(invited.status, invited.text).toBe(201);
    await first.close();

    const second = await startTestApi({ TEMPORAL_TASK_QUEUE: queue });
    apis.push(second);
    const config = loadConfig({ ...integrationEnv(), TEMPORAL_TASK_QUEUE: queue });
    const db = createDatabase({ connectionString: config.databaseUrl, max: 2 });
    const { worker, close } = await createWorker({ config, db, logger: createLogger({ level: 'warn', name: 'system-email-worker', format: 'json' }) });
    const running = worker.run();
    try {
      const resetToken = await resetTokenFor(admin.email);
      const inviteToken = await invitationTokenFor(invitee);
      // both runs finished: nothing more can be sent for these keys
      const runs = [systemEmailWorkflowId(`password-reset:${hashToken(resetToken)}`), systemEmailWorkflowId(`invitation:${invited.body.invitation.id}`)];
      for (const id of runs) expect(await second.deps.temporal.client.workflow.getHandle(id).result()).toBe('sent');
      expect(await emailsTo(admin.email)).toHaveLength(1);
      expect(await emailsTo(invitee)).toHaveLength(1);

      const histories = await Promise.all(runs.map(async (id) => JSON.stringify(await second.deps.temporal.client.workflow.getHandle(id).fetchHistory())));
      for (const history of histories) {
        expect(history).not.toContain(resetToken);
        expect(history).not.toContain(inviteToken);
        expect(history).not.toContain(admin.email);
      }
      const rows = await db.selectFrom('emailSends').select(['status', 'data']).where('toEmail', 'in', [admin.email, invitee]).execute();
      expect(rows.map((row) => row.status)).toEqual(['sent', 'sent']);
      expect(JSON.stringify(rows)).not.toContain(resetToken);
    } finally {
      worker.shutdown();
      await running;
      await close();
      await db.destroy();
    }
  }, 180_000);

  it('with Temporal unreachable the reset still answers 200 and the link is sent from the api itself, once', async () => {
    const api = await startTestApi({ TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`, TEMPORAL_TASK_QUEUE: queue });
    apis.push(api);
    const admin = await createTestAdmin(api, 'reset-no-temporal');
    const requested = await new SessionClient(api).request('POST', '/api/auth/request-password-reset', { body: { email: admin.email } });
    expect(requested.status).toBe(200);
    const token = await resetTokenFor(admin.email);
    expect(await emailsTo(admin.email)).toHaveLength(1);
    const row = await api.deps.db.selectFrom('emailSends').select(['status', 'idempotencyKey']).where('toEmail', '=', admin.email).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'sent', idempotencyKey: `password-reset:${hashToken(token)}` });
  }, 180_000);
});
