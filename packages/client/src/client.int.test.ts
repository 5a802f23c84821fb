import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailsTo, uniqueAddress } from '../../../test/email-emulator';
import { issueApiKey, startTestApi, type TestApi } from '../../../test/test-api';
import { createClient } from './client';
import { WaymarkError } from './waymark-error';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/** What the proxy does with one request: answer it itself, forward it, or forward it and lose the answer. */
type Move = { answer: number; headers?: Record<string, string> } | 'forward' | 'forward-then-503' | 'hang';

interface Seen {
  path: string;
  idempotencyKey: string | undefined;
  at: number;
  answeredAt?: number;
}

/**
 * A small HTTP proxy in front of the real api, playing a deploy or a rate limit: each request takes
 * the next scripted move (then `forward` once the script is used up) and is recorded.
 */
async function startFlakyProxy(target: string) {
  let script: Move[] = [];
  const seen: Seen[] = [];
  const held: ServerResponse[] = [];
  const forward = async (request: IncomingMessage, body: Buffer) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers))
      if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers.set(name, value);
    return fetch(`${target}${request.url}`, { method: request.method, headers, body: body.length === 0 ? undefined : new Uint8Array(body) });
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const record: Seen = { path: request.url ?? '', idempotencyKey: request.headers['idempotency-key'] as string | undefined, at: Date.now() };
      seen.push(record);
      const move = script.shift() ?? 'forward';
      const finish = (status: number, headers: Record<string, string>, body: string) => {
        record.answeredAt = Date.now();
        response.writeHead(status, headers).end(body);
      };
      const body = Buffer.concat(chunks);
      if (move === 'hang') return void held.push(response);
      if (typeof move === 'object')
        return finish(move.answer, { 'content-type': 'application/json', ...move.headers }, JSON.stringify({ error: `proxy says ${move.answer}` }));
      void forward(request, body).then(async (answer) => {
        if (move === 'forward-then-503') return finish(503, { 'content-type': 'text/html' }, '<h1>Service Unavailable</h1>');
        finish(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }, await answer.text());
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    play(moves: Move[]) {
      script = [...moves];
      seen.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('@waymark/client against the real api', () => {
  let api: TestApi;
  let proxy: Awaited<ReturnType<typeof startFlakyProxy>>;
  let apiKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    apiKey = await issueApiKey(api, LEGACY, 'client-test', ['ingest']);
    proxy = await startFlakyProxy(api.url);
  });
  afterAll(async () => {
    await proxy?.close();
    await api?.close();
  });

  const client = (options: { retries?: number; timeoutMs?: number } = {}) => createClient({ apiKey, baseUrl: proxy.url, ...options });
  const eventsOf = (userId: string) =>
    api.deps.db.selectFrom('events').select(['event', 'idempotencyKey', 'properties']).where('userId', '=', userId).execute();

  it('an event tracked through a 503 whose answer was lost, another 503 and a retry is stored once, with one idempotency key', async () => {
    const userId = `client-${randomUUID()}`;
    proxy.play(['forward-then-503', { answer: 503 }, 'forward']);

    const result = await client().track('trial.started', { userId, email: `${userId}@example.com`, properties: { plan: 'pro' } });

    expect(proxy.seen).toHaveLength(3);
    const keys = new Set(proxy.seen.map((request) => request.idempotencyKey));
    expect(keys.size).toBe(1);
    const [key] = [...keys];
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    // the first attempt was stored; the api knew the key on the third
    expect(result.stored).toBe(false);
    expect(await eventsOf(userId)).toEqual([{ event: 'trial.started', idempotencyKey: key, properties: { plan: 'pro' } }]);
  });

  it('a 429 waits for its Retry-After before the retry', async () => {
    const userId = `client-${randomUUID()}`;
    proxy.play([{ answer: 429, headers: { 'retry-after': '1' } }, 'forward']);

    const result = await client().track('user.signed_up', { userId, properties: { plan: 'free' }, occurredAt: new Date('2026-11-01T10:00:00Z') });

    expect(result.stored).toBe(true);
    expect(proxy.seen).toHaveLength(2);
    expect(proxy.seen[1]!.at - proxy.seen[0]!.answeredAt!).toBeGreaterThanOrEqual(1000);
    expect(proxy.seen[1]!.idempotencyKey).toBe(proxy.seen[0]!.idempotencyKey);
    expect(await eventsOf(userId)).toHaveLength(1);
  });

  it("a 4xx is not retried: WaymarkError with the status and the api's message", async () => {
    proxy.play([]);
    const error = await client()
      .identify({ email: 'not an address' })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(WaymarkError);
    expect(error).toMatchObject({ status: 400, attempts: 1 });
    expect((error as WaymarkError).message).toMatch(/email/i);
    expect(proxy.seen).toHaveLength(1);
  });

  it('retries give up after the last one with the last status, and a call without an answer times out', async () => {
    proxy.play([{ answer: 502 }, { answer: 502 }]);
    await expect(client({ retries: 1 }).track('page.viewed', { userId: 'nobody' })).rejects.toMatchObject({
      name: 'WaymarkError',
      status: 502,
      attempts: 2,
      message: 'proxy says 502',
    });

    proxy.play(['hang']);
    await expect(client({ retries: 0, timeoutMs: 300 }).track('page.viewed', { userId: 'nobody' })).rejects.toMatchObject({
      name: 'WaymarkError',
      status: undefined,
      message: 'No answer within 300 ms',
    });
  });

  it('identify, sendEmail and batch reach the api', async () => {
    proxy.play([]);
    const userId = `client-${randomUUID()}`;
    const to = uniqueAddress('client');
    const waymark = client();

    const { contact } = await waymark.identify({ userId, email: to, properties: { plan: 'team' } });
    expect(contact).toMatchObject({ externalId: userId, email: to, properties: { plan: 'team' } });

    const orderId = `C-${randomUUID().slice(0, 8)}`;
    const sent = await waymark.sendEmail('order-receipt', { to, userId, data: { orderId, items: [{ name: 'Pro plan', quantity: 1, price: 29 }] } });
    expect(sent).toMatchObject({ status: 'sent', emailSendId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect((await emailsTo(to)).map((email) => email.subject)).toEqual([`Your receipt for order ${orderId}`]);

    const results = await waymark.batch((calls) => {
      calls.track('project.created', { userId, properties: { projectId: 'p1', name: 'Atlas' } });
      calls.identify({ email: 'still not an address' });
      calls.track('session.started', { userId, contactProperties: { seats: 3 } }, { idempotencyKey: `session-${userId}` });
    });
    expect(results.map((result) => result.ok)).toEqual([true, false, true]);
    expect(results[1]).toMatchObject({ ok: false, error: { name: 'WaymarkError', status: 400 } });
    expect((await eventsOf(userId)).map((event) => event.event).sort()).toEqual(['project.created', 'session.started']);
    expect((await eventsOf(userId)).find((event) => event.event === 'session.started')?.idempotencyKey).toBe(`session-${userId}`);
  });
});
