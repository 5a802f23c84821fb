import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordDeadLetter } from '@waymark/core/dlq/dead-letters';
import { sendEmail } from '@waymark/core/emails/send-email';
import { emailsTo, header, uniqueAddress } from '../../../../../test/email-emulator';
import { eventually } from '../../../../../test/eventually';
import { startTestApi, type TestApi } from '../../../../../test/test-api';
import { integrationEnv } from '../../../../../test/test-env';
import { withScratchDatabase } from '../../../../../test/scratch-database';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../../../../../test/webhook-receiver';
import { exited, startWorkerProcess } from '../../../../../test/worker-process';
import { releaseTaskQueue } from '../../../../../test/task-queue-cleanup';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

describe('outbound webhooks: endpoints, signed delivery, retries, a killed worker', () => {
  let api: TestApi;
  let receiver: WebhookReceiver;
  const queue = `outbound-${randomUUID()}`;
  // a fast retry schedule (200 ms, doubling) so 500×3-then-200 takes seconds, not minutes
  // a database of its own: these endpoints take every contact.unsubscribed, journey.* and email.*
  // event, and other test files write such facts in the shared test database at the same time
  const settings = {
    DATABASE_URL: '',
    TEMPORAL_TASK_QUEUE: queue,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_INITIAL_INTERVAL_MS: '200',
    WEBHOOK_RETRY_MAX_INTERVAL_MS: '2000',
  };
  const workers: ChildProcess[] = [];
  const startWorker = () => {
    const worker = startWorkerProcess({ ...integrationEnv(), ...settings, LOG_LEVEL: 'warn' });
    workers.push(worker);
    return worker;
  };
  const endpointIds: string[] = [];

  let finish: (() => void) | undefined;
  let done: Promise<void> | undefined;

  beforeAll(async () => {
    // the scratch database lives as long as the file's tests: finish() lets withScratchDatabase drop it
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
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, ...settings });
  }, 60_000);
  afterAll(async () => {
    for (const worker of workers) {
      worker.kill('SIGTERM');
      await exited(worker);
    }
    for (const id of endpointIds) await api.request('DELETE', `/v1/admin/webhook-endpoints/${id}`, { token: LEGACY });
    await releaseTaskQueue(api.deps.temporal.client, queue);
    await api.close();
    await receiver.close();
    finish?.();
    await done;
  }, 60_000);

  const createEndpoint = async (path: string, events: string[]) => {
    const created = await api.request('POST', '/v1/admin/webhook-endpoints', {
      token: LEGACY,
      body: { url: `${receiver.url}${path}`, events, description: path },
    });
    expect(created.status).toBe(201);
    endpointIds.push(created.body.id);
    return created.body as { id: string; secret: string };
  };
  const deliveries = async (endpointId: string) => (await api.request('GET', `/v1/admin/webhook-endpoints/${endpointId}/deliveries`, { token: LEGACY })).body;
  const receivedOn = (path: string) => receiver.received.filter((request) => request.path === path);
  const verify = (secret: string, request: ReceivedWebhook) =>
    new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as { type: string; timestamp: string; data: Record<string, unknown> };

  describe('admin API', () => {
    it('creates (secret shown once), lists, reads, patches, rotates and deletes; audits every mutation', async () => {
      const created = await createEndpoint('/crud', ['contact.created', 'email.sent']);
      expect(created).toMatchObject({
        url: `${receiver.url}/crud`,
        events: ['contact.created', 'email.sent'],
        enabled: true,
        description: '/crud',
        disabledReason: null,
      });
      expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

      const detail = await api.request('GET', `/v1/admin/webhook-endpoints/${created.id}`, { token: LEGACY });
      expect(detail.status).toBe(200);
      expect(detail.body).not.toHaveProperty('secret');
      const list = await api.request('GET', '/v1/admin/webhook-endpoints?limit=100', { token: LEGACY });
      expect(list.body).toMatchObject({ limit: 100, offset: 0 });
      expect(list.body.total).toBeGreaterThanOrEqual(1);
      const listed = list.body.endpoints.find((endpoint: { id: string }) => endpoint.id === created.id);
      expect(listed).toBeDefined();
      expect(listed).not.toHaveProperty('secret');

      const patched = await api.request('PATCH', `/v1/admin/webhook-endpoints/${created.id}`, {
        token: LEGACY,
        body: { events: ['email.opened'], enabled: false, description: null },
      });
      expect(patched.body).toMatchObject({ events: ['email.opened'], enabled: false, description: null });

      const rotated = await api.request('POST', `/v1/admin/webhook-endpoints/${created.id}/rotate-secret`, { token: LEGACY });
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).toMatch(/^whsec_/);
      expect(rotated.body.secret).not.toBe(created.secret);

      const removed = await api.request('DELETE', `/v1/admin/webhook-endpoints/${created.id}`, { token: LEGACY });
      expect(removed.body).toEqual({ deleted: true });
      expect((await api.request('GET', `/v1/admin/webhook-endpoints/${created.id}`, { token: LEGACY })).status).toBe(404);
      expect((await api.request('DELETE', `/v1/admin/webhook-endpoints/${created.id}`, { token: LEGACY })).status).toBe(404);

      const audit = await api.request('GET', '/v1/admin/audit-logs?resource=webhook-endpoint&limit=100', { token: LEGACY });
      const actions = audit.body.logs.filter((log: { resourceId: string }) => log.resourceId === created.id).map((log: { action: string }) => log.action);
      expect(actions.sort()).toEqual(['create', 'delete', 'rotate', 'update']);
    });

    it("keeps an endpoint URL's credentials and path out of the audit log, which a read key can open", async () => {
      const secretUrl = new URL(`${receiver.url}/in?token=abc-${randomUUID()}`);
      secretUrl.username = 'svc';
      secretUrl.password = `S3cret-${randomUUID()}`;
      const created = await api.request('POST', '/v1/admin/webhook-endpoints', { token: LEGACY, body: { url: secretUrl.href, events: ['contact.created'] } });
      expect(created.status, created.text).toBe(201);
      endpointIds.push(created.body.id);

      const reader = await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: 'audit-reader', scopes: ['read'] } });
      const audit = await api.request('GET', '/v1/admin/audit-logs?resource=webhook-endpoint&limit=100', { token: reader.body.key });
      expect(audit.status).toBe(200);
      const row = audit.body.logs.find((log: { resourceId: string; action: string }) => log.resourceId === created.body.id && log.action === 'create');
      expect(row.detail).toEqual({ host: secretUrl.host, events: ['contact.created'] });
      expect(audit.text).not.toContain(secretUrl.password);
      expect(audit.text).not.toContain(secretUrl.searchParams.get('token'));
    });

    it('answers 400 for bad bodies, 404 for unknown ids, 403 for a read key', async () => {
      for (const body of [
        { url: 'ftp://example.com/hook', events: ['contact.created'] },
        { url: 'not a url', events: ['contact.created'] },
        { url: 'https://example.com/hook', events: [] },
        { url: 'https://example.com/hook', events: ['contact.exploded'] },
        { url: 'https://example.com/hook' },
        { url: 'https://example.com/hook', events: ['contact.created'], secret: 'mine' },
      ]) {
        const response = await api.request('POST', '/v1/admin/webhook-endpoints', { token: LEGACY, body });
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(response.body.error).toEqual(expect.any(String));
      }
      const unknown = randomUUID();
      for (const [method, path] of [
        ['GET', `/v1/admin/webhook-endpoints/${unknown}`],
        ['PATCH', `/v1/admin/webhook-endpoints/${unknown}`],
        ['POST', `/v1/admin/webhook-endpoints/${unknown}/rotate-secret`],
        ['POST', `/v1/admin/webhook-endpoints/${unknown}/test`],
        ['GET', `/v1/admin/webhook-endpoints/${unknown}/deliveries`],
      ] as const) {
        const response = await api.request(method, path, { token: LEGACY, ...(method === 'PATCH' ? { body: { enabled: true } } : {}) });
        expect(response, `${method} ${path}`).toMatchObject({ status: 404, body: { error: 'Webhook endpoint not found' } });
      }
      expect((await api.request('GET', '/v1/admin/webhook-endpoints/not-a-uuid', { token: LEGACY })).status).toBe(400);
      const reader = await api.request('POST', '/v1/admin/api-keys', { token: LEGACY, body: { name: 'reader', scopes: ['read'] } });
      expect((await api.request('GET', '/v1/admin/webhook-endpoints', { token: reader.body.key })).status).toBe(403);
    });
  });

  describe('delivery (a worker process on this queue)', () => {
    // the worker process bundles its workflows before it polls: wait for it once, here
    beforeAll(async () => {
      startWorker();
      const ready = await createEndpoint('/ready', ['journey.completed']);
      await api.request('POST', `/v1/admin/webhook-endpoints/${ready.id}/test`, { token: LEGACY });
      await eventually(
        () => receivedOn('/ready'),
        (list) => list.length > 0,
        { timeoutMs: 110_000, intervalMs: 250, what: 'the worker process to deliver a first test event' },
      );
    }, 120_000);

    it('a local receiver gets contact.unsubscribed within 5 s of a one-click unsubscribe, signed so standardwebhooks verifies it', async () => {
      const endpoint = await createEndpoint('/unsubscribed', ['contact.unsubscribed']);
      const to = uniqueAddress('outbound');
      const userId = `u-${randomUUID()}`;
      expect((await sendEmail(api.deps.email, { templateKey: 'welcome', to, userId, idempotencyKey: randomUUID() })).status).toBe('sent');
      const [message] = await emailsTo(to);
      const target = header(message!, 'List-Unsubscribe')!.slice(1, -1);
      const clicked = Date.now();
      const oneClick = await fetch(`${api.url}${target.replace(api.config.apiPublicUrl, '')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
      expect(oneClick.status).toBe(200);
      const [request] = await eventually(
        () => receivedOn('/unsubscribed'),
        (list) => list.length > 0,
        { what: 'contact.unsubscribed at the receiver' },
      );
      const payload = verify(endpoint.secret, request!);
      expect(payload).toMatchObject({ type: 'contact.unsubscribed', data: { userId, email: to, category: 'journey', source: 'one_click' } });
      expect(new Date(payload.timestamp).getTime()).toBeGreaterThanOrEqual(clicked - 1000);
      expect(() => verify(`whsec_${Buffer.from('another secret entirely!').toString('base64')}`, request!)).toThrow();

      // timed from the click: a second unsubscribe (another address) reaches the receiver within 5 s
      const second = uniqueAddress('outbound-fast');
      await sendEmail(api.deps.email, { templateKey: 'welcome', to: second, userId: `${userId}-2`, idempotencyKey: randomUUID() });
      const [secondMessage] = await emailsTo(second);
      const secondTarget = header(secondMessage!, 'List-Unsubscribe')!.slice(1, -1);
      const started = Date.now();
      await fetch(`${api.url}${secondTarget.replace(api.config.apiPublicUrl, '')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
      const [fast] = await eventually(
        () => receivedOn('/unsubscribed').filter((entry) => entry.body.includes(second)),
        (list) => list.length > 0,
        { timeoutMs: 5_000, intervalMs: 20, what: 'the second contact.unsubscribed within 5 s' },
      );
      expect(fast!.at - started).toBeLessThan(5_000);
      expect(verify(endpoint.secret, fast!).data).toMatchObject({ email: second });

      const listed = await eventually(
        () => deliveries(endpoint.id),
        (page) => page.deliveries.filter((delivery: { status: string }) => delivery.status === 'succeeded').length === 2,
        { what: 'two succeeded deliveries' },
      );
      expect(listed).toMatchObject({ total: 2, limit: 50, offset: 0 });
      expect(listed.deliveries[0]).toMatchObject({
        eventType: 'contact.unsubscribed',
        attempts: 1,
        lastStatusCode: 200,
        responseBody: 'ok',
        nextAttemptAt: null,
        lastError: null,
      });
      expect(listed.deliveries.map((delivery: { eventId: string }) => delivery.eventId).sort()).toEqual(
        receivedOn('/unsubscribed')
          .map((entry) => entry.headers['webhook-id'])
          .sort(),
      );
    });

    it('a receiver answering 500 three times gets the event on the fourth attempt, with the same webhook-id', async () => {
      const endpoint = await createEndpoint('/flaky', ['journey.failed']);
      receiver.on('/flaky', (_request, nth) => (nth <= 3 ? 500 : 200));
      const test = await api.request('POST', `/v1/admin/webhook-endpoints/${endpoint.id}/test`, { token: LEGACY });
      expect(test.status).toBe(202);
      const page = await eventually(
        () => deliveries(endpoint.id),
        (value) => value.deliveries[0]?.status === 'succeeded',
        { timeoutMs: 30_000, what: 'the flaky delivery to succeed' },
      );
      expect(page.deliveries[0]).toMatchObject({ eventId: test.body.eventId, eventType: 'webhook.test', attempts: 4, lastStatusCode: 200, lastError: null });
      const attempts = receivedOn('/flaky');
      expect(attempts.map((entry) => entry.status)).toEqual([500, 500, 500, 200]);
      expect(new Set(attempts.map((entry) => entry.headers['webhook-id']))).toEqual(new Set([test.body.eventId]));
      for (const attempt of attempts) expect(verify(endpoint.secret, attempt)).toMatchObject({ type: 'webhook.test', data: { endpointId: endpoint.id } });
      // the retries waited (Temporal's timer, not a tight loop)
      expect(attempts[3]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(200 + 400 + 800 - 100);
    });

    it('a delivery parked in the DLQ is retried from the DLQ endpoint: delivered again with the same webhook-id', async () => {
      const endpoint = await createEndpoint('/parked', ['email.failed']);
      // what a delivery that gave up after its retry window leaves behind (core/webhooks/outbound/delivery-queue.int.test.ts)
      const { eventId, dlqId } = await api.deps.db.transaction().execute(async (trx) => {
        const event = await trx
          .insertInto('outboundEvents')
          .values({ event: 'email.failed', payload: JSON.stringify({ emailId: 'e-1', to: 'parked@example.com' }), dispatchedAt: new Date() })
          .returning('id')
          .executeTakeFirstOrThrow();
        const delivery = await trx
          .insertInto('webhookDeliveries')
          .values({ endpointId: endpoint.id, outboundEventId: event.id, eventType: 'email.failed', status: 'failed', attempts: 30, lastError: 'HTTP 503' })
          .returning('id')
          .executeTakeFirstOrThrow();
        const dlqId = await recordDeadLetter(trx, {
          source: 'webhook-delivery',
          sourceId: delivery.id,
          payload: { deliveryId: delivery.id, endpointId: endpoint.id, eventId: event.id, type: 'email.failed' },
          error: 'HTTP 503',
          retryCount: 30,
        });
        return { eventId: event.id, dlqId };
      });
      const retried = await api.request('POST', `/v1/admin/dlq/${dlqId}/retry`, { token: LEGACY });
      expect(retried).toMatchObject({ status: 200, body: { id: dlqId, status: 'retried' } });
      const [request] = await eventually(
        () => receivedOn('/parked'),
        (list) => list.length > 0,
        { what: 'the redelivered event' },
      );
      expect(request!.headers['webhook-id']).toBe(eventId);
      expect(verify(endpoint.secret, request!)).toMatchObject({ type: 'email.failed', data: { emailId: 'e-1' } });
      const page = await eventually(
        () => deliveries(endpoint.id),
        (value) => value.deliveries[0]?.status === 'succeeded',
        { what: 'the delivery recorded as succeeded' },
      );
      expect(page.deliveries[0]).toMatchObject({ eventId, lastStatusCode: 200 });
      // counted on top of the 30 before it (not reset); a loaded box may time out one attempt of the
      // retry before it succeeds, so the count is at least 31, not exactly
      expect(page.deliveries[0]!.attempts).toBeGreaterThan(30);
      expect((await api.request('POST', `/v1/admin/dlq/${dlqId}/retry`, { token: LEGACY })).status).toBe(409);
    });

    it('the dispatcher listens again after PostgreSQL drops its connection', async () => {
      const endpoint = await createEndpoint('/relisten', ['journey.exited']);
      const listeners = async () =>
        (
          await sql<{
            pid: number;
          }>`select pid from pg_stat_activity where datname = current_database() and application_name = 'waymark-outbound-listener'`.execute(api.deps.db)
        ).rows.map((row) => row.pid);
      const before = await eventually(listeners, (pids) => pids.length > 0, { what: 'a listening dispatcher' });
      await sql`select pg_terminate_backend(pid) from unnest(${before}::int[]) pid`.execute(api.deps.db);
      await eventually(listeners, (pids) => pids.length > 0 && pids.every((pid) => !before.includes(pid)), { what: 'the dispatcher to listen again' });
      const test = await api.request('POST', `/v1/admin/webhook-endpoints/${endpoint.id}/test`, { token: LEGACY });
      // well inside the sweep's 10 s grace: this start came from a notice
      const [request] = await eventually(
        () => receivedOn('/relisten'),
        (list) => list.length > 0,
        { timeoutMs: 8_000, what: 'the test event through the new listener' },
      );
      expect(request!.headers['webhook-id']).toBe(test.body.eventId);
    });

    it('kill the worker mid-delivery and while events are written: nothing is lost', async () => {
      const endpoint = await createEndpoint('/kill', ['contact.unsubscribed']);
      // the first attempt hangs (the worker dies holding it); later attempts succeed
      receiver.on('/kill', (_request, nth) => (nth === 1 ? 'hang' : 200));
      const test = await api.request('POST', `/v1/admin/webhook-endpoints/${endpoint.id}/test`, { token: LEGACY });
      await eventually(
        () => receivedOn('/kill'),
        (list) => list.length === 1,
        { what: 'the first attempt in flight' },
      );
      const first = workers.at(-1)!;
      first.kill('SIGKILL');
      await exited(first);

      // a fact committed while no worker runs: its outbox row waits for the next worker's sweep
      const email = uniqueAddress('outbound-down');
      const token = await api.deps.email.tokens.sign({ externalId: `down-${randomUUID()}`, email, action: 'unsubscribe' });
      expect((await api.request('POST', `/v1/email/unsubscribe?token=${token}`)).status).toBe(200);

      startWorker();
      // other test files unsubscribe people in the same database meanwhile, and this endpoint takes
      // every contact.unsubscribed: wait for exactly the two events of this test, by their own marks
      const received = await eventually(
        () => receivedOn('/kill').filter((entry) => entry.status === 200),
        (list) => list.some((entry) => entry.headers['webhook-id'] === test.body.eventId) && list.some((entry) => entry.body.includes(email)),
        { timeoutMs: 90_000, intervalMs: 250, what: 'the interrupted test event and the event written while down' },
      );
      const interrupted = received.find((entry) => entry.headers['webhook-id'] === test.body.eventId)!;
      expect(verify(endpoint.secret, interrupted).type).toBe('webhook.test');
      const writtenWhileDown = received.find((entry) => entry.body.includes(email))!;
      expect(verify(endpoint.secret, writtenWhileDown).type).toBe('contact.unsubscribed');
      const ours = [test.body.eventId, writtenWhileDown.headers['webhook-id']];
      const page = await eventually(
        () => deliveries(endpoint.id),
        (value) =>
          ours.every((id) =>
            value.deliveries.some((delivery: { eventId: string; status: string }) => delivery.eventId === id && delivery.status === 'succeeded'),
          ),
        { what: 'both deliveries recorded as succeeded' },
      );
      expect(page.deliveries.filter((delivery: { eventId: string }) => ours.includes(delivery.eventId))).toHaveLength(2);
    }, 150_000);
  });
});
