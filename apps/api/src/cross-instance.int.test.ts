import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueAddress, type EmulatorEmail } from '../../../test/email-emulator';
import { eventually } from '../../../test/eventually';
import { freePort } from '../../../test/free-port';
import { integrationEnv } from '../../../test/test-env';
import { waitForPort } from '../../../test/throwaway-services';
import { exited, startWorkerProcess } from '../../../test/worker-process';
import { releaseTaskQueue } from '../../../test/task-queue-cleanup';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
// small enough to reach in a few requests, large enough for the setup calls of the legacy key
const RATE_LIMIT_MAX = 8;

/** An api process (apps/api/src/server.ts), as `npm start` runs it, on a port of its own. */
function startApiProcess(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/server.ts'], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/**
 * Two api processes and two worker processes on one machine, behind nothing but different ports
 * (docs/scaling.md, scaling out): what one instance learns the other must honour, through Redis,
 * PostgreSQL and Temporal only.
 */
describe('two api processes and two workers side by side', () => {
  const queue = `cross-instance-${randomUUID().slice(0, 8)}`;
  const children: ChildProcess[] = [];
  const urls: string[] = [];

  const request = async (url: string, method: string, route: string, token: string, body?: unknown) => {
    const response = await fetch(`${url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text.length > 0 ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };

  beforeAll(async () => {
    const env = {
      ...integrationEnv(),
      ADMIN_API_KEY: LEGACY,
      TEMPORAL_TASK_QUEUE: queue,
      RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
      RATE_LIMIT_WINDOW_MS: '60000',
      // the shared test database's outbox belongs to the suite's own workers
      OUTBOUND_DISPATCH: 'false',
    };
    const ports = [await freePort(), await freePort()];
    for (const port of ports) {
      children.push(startApiProcess({ ...env, PORT: String(port), HOST: '127.0.0.1', API_PUBLIC_URL: `http://127.0.0.1:${port}` }));
      urls.push(`http://127.0.0.1:${port}`);
    }
    children.push(startWorkerProcess(env), startWorkerProcess(env));
    await Promise.all(ports.map((port) => waitForPort(port, 180_000)));
  }, 240_000);

  afterAll(async () => {
    for (const child of children) {
      child.kill('SIGTERM');
      await exited(child);
    }
    await releaseTaskQueue(integrationEnv().TEMPORAL_ADDRESS, queue);
  }, 120_000);

  it('a key revoked through one api is refused by the other at once (its 60 s cache is evicted over Redis)', async () => {
    const [a, b] = urls as [string, string];
    const created = await request(a, 'POST', '/v1/admin/api-keys', LEGACY, { name: `cross-${randomUUID()}`, scopes: ['read'] });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    // b reads the key once, so it sits in b's cache
    expect((await request(b, 'GET', '/v1/admin/journeys', key)).status).toBe(200);
    expect((await request(a, 'DELETE', `/v1/admin/api-keys/${String(created.body.id)}`, LEGACY)).status).toBe(200);
    // the pub/sub message takes milliseconds; two seconds leave room for a loaded machine, far under the cache's 60 s
    const statuses = await eventually(
      () => request(b, 'GET', '/v1/admin/journeys', key).then((response) => response.status),
      (status) => status === 401,
      { timeoutMs: 2_000, intervalMs: 50, what: 'the other api to refuse the revoked key' },
    );
    expect(statuses).toBe(401);
    expect((await request(a, 'GET', '/v1/admin/journeys', key)).status).toBe(401);
  });

  it('one rate-limit window per key across both apis', async () => {
    const [a, b] = urls as [string, string];
    const created = await request(a, 'POST', '/v1/admin/api-keys', LEGACY, { name: `cross-rl-${randomUUID()}`, scopes: ['read'] });
    const key = created.body.key as string;
    const statuses: number[] = [];
    for (let i = 0; i < RATE_LIMIT_MAX; i += 1) statuses.push((await request(i % 2 === 0 ? a : b, 'GET', '/v1/admin/journeys', key)).status);
    expect(statuses).toEqual(Array.from({ length: RATE_LIMIT_MAX }, () => 200));
    // each api alone has seen half the budget: only a shared count refuses the next call on either
    expect((await request(a, 'GET', '/v1/admin/journeys', key)).status).toBe(429);
    expect((await request(b, 'GET', '/v1/admin/journeys', key)).status).toBe(429);
  });

  it('signups sent to both apis, both workers polling one queue: every welcome email goes out exactly once', async () => {
    // both workers really compete for the queue's tasks (a worker still bundling would leave it to one)
    const connection = await Connection.connect({ address: integrationEnv().TEMPORAL_ADDRESS });
    try {
      const pollers = await eventually(
        async () =>
          (
            await connection.workflowService.describeTaskQueue({
              namespace: 'default',
              taskQueue: { name: queue },
              taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
            })
          ).pollers.map((poller) => poller.identity),
        (identities) => new Set(identities).size >= 2,
        { timeoutMs: 180_000, intervalMs: 1_000, what: 'two workers polling the queue' },
      );
      expect(new Set(pollers).size).toBe(2);
    } finally {
      await connection.close();
    }
    const ingestKey = await request(urls[0]!, 'POST', '/v1/admin/api-keys', LEGACY, { name: `cross-ingest-${randomUUID()}`, scopes: ['ingest'] });
    const users = Array.from({ length: 16 }, (_, i) => ({ userId: `cross-${randomUUID().slice(0, 8)}-${i}`, email: uniqueAddress('cross') }));
    // half the budget of the (shared) limit per key: a fresh ingest key per api keeps the 16 under it
    const second = await request(urls[1]!, 'POST', '/v1/admin/api-keys', LEGACY, { name: `cross-ingest-b-${randomUUID()}`, scopes: ['ingest'] });
    const keys = [ingestKey.body.key as string, second.body.key as string];
    const accepted = await Promise.all(
      users.map((user, i) => request(urls[i % 2]!, 'POST', '/v1/events', keys[Math.floor(i / RATE_LIMIT_MAX)]!, { name: 'user.signed_up', ...user })),
    );
    expect(accepted.map((response) => response.status)).toEqual(users.map(() => 202));

    const addresses = new Set(users.map((user) => user.email));
    const sentTo = async () => {
      const store = (await (await fetch(`${integrationEnv().SES_ENDPOINT}/store`)).json()) as { emails: EmulatorEmail[] };
      return store.emails.flatMap((email) => email.destination.to).filter((to) => addresses.has(to));
    };
    await eventually(sentTo, (sent) => new Set(sent).size === users.length, { timeoutMs: 120_000, intervalMs: 500, what: 'every welcome email at SES' });
    // a moment later still once each: neither worker ran a second copy of a send
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const sent = await sentTo();
    expect(sent.length).toBe(users.length);
    expect(new Set(sent).size).toBe(users.length);
  }, 180_000);
});
