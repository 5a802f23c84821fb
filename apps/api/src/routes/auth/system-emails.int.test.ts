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
import { eventually } from '../../../../../test/eventually';
import { freePort } from '../../../../../test/free-port';
import { releaseTaskQueue } from '../../../../../test/task-queue-cleanup';
import { startTestApi, type TestApi } from '../../../../../test/test-api';
import { integrationEnv } from '../../../../../test/test-env';
import { throwawayTemporal } from '../../../../../test/throwaway-services';
import { openScratchDatabase, type ScratchDatabase } from '../../../../../test/scratch-database';

describe('reset and invitation emails are workflow runs: an api restart before the send loses nothing', () => {
  // a queue no worker polls until the first api is gone, so the send cannot happen before the restart
  const queue = `system-email-${randomUUID()}`;
  const apis: TestApi[] = [];
  let scratch: ScratchDatabase | undefined;
  afterAll(async () => {
    for (const api of apis) await api.close().catch(() => undefined);
    await scratch?.release();
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

  it('a reset and an invitation asked for while Temporal is down, the api restarted: each arrives once after Temporal returns', async () => {
    // this test's own Temporal, down (not started yet) while the emails are asked for
    const temporal = throwawayTemporal(await freePort());
    // a database of this test's own: its worker relays kept effects and system emails, which on the
    // shared database would include (and carry out against this test's Temporal) another file's
    scratch = await openScratchDatabase();
    const env = { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: `${queue}-outage`, DATABASE_URL: scratch.url };
    const first = await startTestApi(env);
    apis.push(first);
    const admin = await createTestAdmin(first, 'reset-no-temporal');
    const owner = new SessionClient(first);
    expect((await owner.signIn(admin.email, admin.password)).status).toBe(200);
    const orgId = (await owner.request('GET', '/api/auth/organization/list')).body.organizations[0].id as string;
    const invitee = uniqueAddress('invite-no-temporal');
    const keptKeys = async (db: TestApi['deps']['db']) =>
      (await db.selectFrom('systemEmailOutbox').select('idempotencyKey').execute()).map((row) => row.idempotencyKey);
    const before = new Set(await keptKeys(first.deps.db));
    const requested = await new SessionClient(first).request('POST', '/api/auth/request-password-reset', { body: { email: admin.email } });
    expect(requested.status).toBe(200);
    const invited = await owner.request('POST', `/api/auth/organization/${orgId}/invite`, { body: { email: invitee, role: 'viewer' } });
    expect(invited.status, invited.text).toBe(201);
    // the api stops during the outage: both emails are kept, sealed, for the relay; none was sent
    await first.close();
    const second = await startTestApi(env);
    apis.push(second);
    const keys = (await keptKeys(second.deps.db)).filter((key) => !before.has(key));
    expect(keys.map((key) => key.split(':')[0]).sort()).toEqual(['invitation', 'password-reset']);
    expect(keys).toContain(`invitation:${invited.body.invitation.id}`);
    const kept = await second.deps.db.selectFrom('systemEmailOutbox').selectAll().where('idempotencyKey', 'in', keys).execute();
    expect(await emailsTo(admin.email)).toHaveLength(0);
    expect(await emailsTo(invitee)).toHaveLength(0);

    await temporal.start();
    const config = loadConfig({ ...integrationEnv(), ...env });
    const db = createDatabase({ connectionString: config.databaseUrl, max: 2 });
    const { worker, close } = await createWorker({
      config,
      db,
      logger: createLogger({ level: 'warn', name: 'system-email-relay', format: 'json' }),
      relayEventEffects: true,
    });
    const running = worker.run();
    try {
      // the relay starts both runs once Temporal answers; each sends once
      await eventually(
        () => db.selectFrom('emailSends').select('status').where('idempotencyKey', 'in', keys).execute(),
        (rows) => rows.length === 2 && rows.every((row) => row.status === 'sent'),
        { timeoutMs: 120_000, intervalMs: 1_000, what: 'both kept emails sent' },
      );
      for (const key of keys) expect(await second.deps.temporal.client.workflow.getHandle(systemEmailWorkflowId(key)).result()).toBe('sent');
      expect(await emailsTo(admin.email)).toHaveLength(1);
      expect(await emailsTo(invitee)).toHaveLength(1);
      // the kept rows held the links sealed: neither token nor address in clear
      const resetToken = await resetTokenFor(admin.email);
      expect(keys).toContain(`password-reset:${hashToken(resetToken)}`);
      for (const secret of [resetToken, await invitationTokenFor(invitee), admin.email, invitee]) expect(JSON.stringify(kept)).not.toContain(secret);
      expect(await db.selectFrom('systemEmailOutbox').select('idempotencyKey').where('idempotencyKey', 'in', keys).execute()).toEqual([]);
    } finally {
      worker.shutdown();
      await running;
      await close();
      await db.destroy();
      await second.close();
      apis.splice(apis.indexOf(second), 1);
      await temporal.destroy();
    }
  }, 300_000);
});
