import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from '../../../worker/src/worker';
import { evaluateAlertRule } from '@waymark/core/alerts/evaluate-alert-rule';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { createLogger } from '@waymark/core/logging/logger';
import { outboundEventTypes } from '@waymark/core/outbox/event-types';
import { eventually } from '../../../../test/eventually';
import { withScratchDatabase } from '../../../../test/scratch-database';
import { releaseTaskQueue } from '../../../../test/task-queue-cleanup';
import { startTestApi, type TestApi } from '../../../../test/test-api';
import { integrationEnv } from '../../../../test/test-env';
import { startWebhookReceiver, type WebhookReceiver } from '../../../../test/webhook-receiver';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
/** imported while the dead endpoints are subscribed: each gets a backlog of 10,000 deliveries (210,000 in all with the live one) */
const CONTACTS = 10_000;
/**
 * How long the small import, the broadcast and the live deliveries may take before the test calls
 * them starved: a liveness bound far above their goals (10 s, 10 s, 5 s), which
 * `npm run bench -- webhook-isolation` measures against a baseline of the same run (bench/README.md).
 */
const STARVED_MS = 180_000;
const DEAD_ENDPOINTS = 20;

/**
 * A few dead endpoints starve nothing (docs/webhooks.md, "Isolation"): with 20 endpoints at
 * addresses that never answer or refuse, each holding a backlog of 10,000, an import completes, a
 * broadcast is sent and a live endpoint gets each of their deliveries; and a dead endpoint is disabled once it
 * has failed for the disable window, with an audit row and the alert.
 */
describe('outbound webhook isolation', () => {
  let api: TestApi;
  let receiver: WebhookReceiver;
  let workerDb: Db;
  let stopWorker: (() => Promise<void>) | undefined;
  const queue = `isolation-${randomUUID()}`;
  const settings = { DATABASE_URL: '', TEMPORAL_TASK_QUEUE: queue, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', ALERT_ALLOW_PRIVATE_TARGETS: 'true' };
  // a local server that takes every connection and never answers, and a port nobody listens on
  const held: Socket[] = [];
  const silent = createServer((socket) => held.push(socket));
  let closedPort = 0;
  const dead: string[] = [];
  let live = '';
  let finish: (() => void) | undefined;
  let done: Promise<void> | undefined;

  beforeAll(async () => {
    settings.DATABASE_URL = await new Promise<string>((resolveUrl, reject) => {
      done = withScratchDatabase(
        (url) =>
          new Promise<void>((release) => {
            finish = release;
            resolveUrl(url);
          }),
      ).catch(reject);
    });
    receiver = await startWebhookReceiver();
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, ...settings });
    const config = loadConfig({ ...integrationEnv(), ...settings });
    workerDb = createDatabase({ connectionString: config.databaseUrl, max: 10 });
    const { worker, close } = await createWorker({
      config,
      db: workerDb,
      logger: createLogger({ level: 'warn', name: 'isolation-worker', format: 'json' }),
      dispatchOutbound: true,
    });
    const running = worker.run();
    stopWorker = async () => {
      worker.shutdown();
      await running;
      await close();
    };

    const silentPort = (silent.address() as AddressInfo).port;
    for (let n = 0; n < DEAD_ENDPOINTS; n++) {
      const url = n % 2 === 0 ? `http://127.0.0.1:${silentPort}/dead-${n}` : `http://127.0.0.1:${closedPort}/dead-${n}`;
      dead.push(await createEndpoint(url));
    }
    live = await createEndpoint(`${receiver.url}/live`);
  }, 180_000);

  afterAll(async () => {
    await stopWorker?.();
    await workerDb?.destroy();
    await releaseTaskQueue(api.deps.temporal.client, queue);
    await api?.close();
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    await receiver?.close();
    finish?.();
    await done;
  }, 60_000);

  async function createEndpoint(url: string): Promise<string> {
    const created = await api.request('POST', '/v1/admin/webhook-endpoints', { token: LEGACY, body: { url, events: [...outboundEventTypes] } });
    expect(created.status, created.text).toBe(201);
    return created.body.id as string;
  }

  async function importContacts(tag: string, count: number, timeoutMs: number) {
    const lines = ['externalId,email'];
    for (let n = 0; n < count; n++) lines.push(`${tag}-${n},${tag}-${n}@waymark-test.example`);
    const submitted = await api.request('POST', '/v1/admin/contacts/import', { token: LEGACY, body: { format: 'csv', data: lines.join('\n') } });
    expect(submitted.status, submitted.text).toBe(202);
    return eventually(
      async () => (await api.request('GET', `/v1/admin/contacts/import/${submitted.body.jobId}`, { token: LEGACY })).body,
      (job) => job.status === 'completed',
      { timeoutMs, intervalMs: 200, what: `the import of ${count} rows` },
    );
  }

  const liveBodies = () => receiver.received.filter((request) => request.path === '/live').map((request) => request.body);
  /**
   * How far the live endpoint's deliveries are: what it received of one import, and what the
   * table says of its deliveries and its health, so a wait that times out says where they stopped.
   */
  async function liveProgress(tag: string) {
    const received = liveBodies().filter((body) => body.includes(tag)).length;
    const deliveries = await api.deps.db
      .selectFrom('webhookDeliveries')
      .select(['status', 'lastError', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.max('attempts').as('mostAttempts')])
      .where('endpointId', '=', live)
      .groupBy(['status', 'lastError'])
      .execute();
    const health = await api.deps.db
      .selectFrom('webhookEndpoints')
      .select(['enabled', 'failingSince', 'backoffUntil'])
      .where('id', '=', live)
      .executeTakeFirst();
    return { received, health, deliveries };
  }
  const openDeadDeliveries = async () =>
    Number(
      (
        await sql<{
          n: number;
        }>`select count(*)::int as n from webhook_deliveries where endpoint_id = any(${dead}::uuid[]) and status in ('pending', 'retrying')`.execute(
          api.deps.db,
        )
      ).rows[0]!.n,
    );

  it('an import completes, a broadcast is sent and a live endpoint gets each delivery while 20 dead endpoints hold a backlog of 10,000 each', async () => {
    const base = `iso-${randomUUID().slice(0, 8)}`;
    await importContacts(base, CONTACTS, 900_000);
    // every contact.created reached the live endpoint: the load is the dead endpoints' backlog
    await eventually(
      () => liveProgress(`${base}-`),
      (progress) => progress.received >= CONTACTS,
      { timeoutMs: 900_000, intervalMs: 1_000, what: 'the live endpoint to get every contact.created of the big import' },
    );
    expect(await openDeadDeliveries()).toBeGreaterThan(CONTACTS * 5);

    // an import of 100 rows completes, and the live endpoint gets each of its events
    const small = `iso-small-${randomUUID().slice(0, 8)}`;
    await importContacts(small, 100, STARVED_MS);
    await eventually(liveBodies, (bodies) => bodies.filter((body) => body.includes(`${small}-`) && body.includes('contact.created')).length >= 100, {
      timeoutMs: STARVED_MS,
      intervalMs: 100,
      what: 'the live endpoint to get the 100 contact.created of the small import',
    });

    // a broadcast to 100 contacts is sent, and the live endpoint gets each email.sent
    const db = api.deps.db;
    const list = await db
      .insertInto('lists')
      .values({ key: `${small}-list`, name: 'isolation' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const members = await db.selectFrom('contacts').select('id').where('externalId', 'like', `${small}-%`).execute();
    expect(members).toHaveLength(100);
    await db
      .insertInto('listMemberships')
      .values(members.map((contact) => ({ listId: list.id, contactId: contact.id, subscribed: true, updatedAt: new Date() })))
      .execute();
    const created = await api.request('POST', '/v1/admin/broadcasts', {
      token: LEGACY,
      body: {
        name: `Isolation ${small}`,
        templateKey: 'reengage-we-miss-you',
        category: 'newsletter',
        audience: { listKey: `${small}-list` },
        data: { productName: 'Atlas' },
      },
    });
    expect(created.status, created.text).toBe(201);
    const broadcastId = created.body.broadcast.id as string;
    expect((await api.request('POST', `/v1/admin/broadcasts/${broadcastId}/send`, { token: LEGACY })).status).toBe(202);
    await eventually(
      async () => (await api.request('GET', `/v1/admin/broadcasts/${broadcastId}`, { token: LEGACY })).body.broadcast,
      (broadcast) => broadcast?.status === 'sent',
      { timeoutMs: STARVED_MS, intervalMs: 200, what: 'the broadcast to 100 contacts to be sent' },
    );
    await eventually(liveBodies, (bodies) => bodies.filter((body) => body.includes(`${small}-`) && body.includes('"email.sent"')).length >= 100, {
      timeoutMs: STARVED_MS,
      intervalMs: 100,
      what: 'the live endpoint to get the 100 email.sent of the broadcast',
    });

    // the dead endpoints still hold their backlog, waiting in PostgreSQL, each failing one at a time
    expect(await openDeadDeliveries()).toBeGreaterThan(CONTACTS * 5);
    const failing = await db.selectFrom('webhookEndpoints').select(['failingSince', 'enabled']).where('id', 'in', dead).execute();
    expect(failing.every((endpoint) => endpoint.failingSince !== null && endpoint.enabled)).toBe(true);
  }, 2_400_000);

  it('a dead endpoint failing for the whole disable window is disabled, audited and alerted; its backlog waits', async () => {
    const rule = await api.request('POST', '/v1/admin/alerts/rules', {
      token: LEGACY,
      body: {
        name: 'endpoints disabled',
        type: 'webhook_endpoint_disabled',
        threshold: 0,
        channel: 'webhook',
        channelConfig: { url: `${receiver.url}/alert` },
      },
    });
    expect(rule.status, rule.text).toBe(201);
    // the endpoint on the closed port has failed for 73 h (the default window is 72): its next attempt disables it
    const [target] = dead.filter((_, n) => n % 2 === 1);
    const backlog = await openDeadDeliveries();
    await api.deps.db
      .updateTable('webhookEndpoints')
      .set({ failingSince: sql<Date>`now() - interval '73 hours'`, backoffUntil: null })
      .where('id', '=', target!)
      .execute();
    const endpoint = await eventually(
      async () => (await api.request('GET', `/v1/admin/webhook-endpoints/${target}`, { token: LEGACY })).body,
      (value) => value.enabled === false,
      { timeoutMs: 20_000, what: 'the endpoint to be disabled' },
    );
    expect(endpoint).toMatchObject({ disabledReason: 'every delivery attempt failed for 72 h', disabledAt: expect.any(String) });
    const audit = await api.request('GET', '/v1/admin/audit-logs?resource=webhook-endpoint&limit=100', { token: LEGACY });
    const byWaymark = audit.body.logs.filter((log: { resourceId: string; actor: string }) => log.resourceId === target && log.actor === 'waymark');
    expect(byWaymark).toMatchObject([{ action: 'update', detail: { enabled: false, disabledReason: endpoint.disabledReason } }]);
    // what the every-minute alert schedule does for this rule
    const outcome = await evaluateAlertRule(
      { db: api.deps.db, outbound: { timeoutMs: 5_000, allowPrivateTargets: true }, mailer: async () => undefined, keys: api.config.encryptionKeys },
      rule.body.id,
      new Date(),
    );
    expect(outcome).toMatchObject({ outcome: 'fired', value: 1, delivered: true });
    expect(receiver.received.filter((request) => request.path === '/alert')).toHaveLength(1);
    // its deliveries are not dropped: they wait, open, for the endpoint to be enabled again
    expect(await openDeadDeliveries()).toBeGreaterThanOrEqual(backlog - DEAD_ENDPOINTS * 4);
  }, 60_000);
});
