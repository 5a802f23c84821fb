import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEmail } from '@waymark/core/emails/send-email';
import { uniqueAddress, waitFor } from '../../../../../test/email-emulator';
import { startTestApi, type TestApi } from '../../../../../test/test-api';

const PUBLIC_URL = 'https://track.waymark-test.example';

/** A stand-in PostHog host: records every batch posted by posthog-node. */
function fakePosthog(): Promise<{ server: Server; url: string; events: { event: string; distinct_id: string; properties: Record<string, unknown> }[] }> {
  const events: { event: string; distinct_id: string; properties: Record<string, unknown> }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let raw = Buffer.concat(chunks);
      if (request.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      try {
        const body = JSON.parse(raw.toString('utf8')) as { batch?: typeof events };
        events.push(...(body.batch ?? []));
      } catch {
        // not a batch
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":1}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, events })),
  );
}

describe('GET /v1/t/c/{id} and /v1/t/o/{id}', () => {
  let api: TestApi;
  let posthog: Awaited<ReturnType<typeof fakePosthog>>;

  beforeAll(async () => {
    posthog = await fakePosthog();
    api = await startTestApi({ API_PUBLIC_URL: PUBLIC_URL, ANALYTICS_API_KEY: 'phc_test', ANALYTICS_HOST: posthog.url });
  });
  afterAll(async () => {
    await api?.close();
    posthog?.server.close();
  });

  async function sentEmail(templateKey = 'welcome-tips') {
    const to = uniqueAddress('track');
    const userId = `u-${randomUUID()}`;
    const result = await sendEmail(api.deps.email, { templateKey, to, userId, idempotencyKey: randomUUID() });
    if (result.status !== 'sent') throw new Error(`send ${result.status}`);
    const links = await api.deps.db.selectFrom('trackedLinks').selectAll().where('emailSendId', '=', result.emailSendId).orderBy('originalUrl').execute();
    return { id: result.emailSendId, to, userId, links };
  }

  const sendRow = (id: string) => api.deps.db.selectFrom('emailSends').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const eventsFor = (userId: string, name: string) =>
    api.deps.db.selectFrom('events').selectAll().where('userId', '=', userId).where('event', '=', name).orderBy('occurredAt').execute();

  it('records each click (IP from the first x-forwarded-for, else x-real-ip), counts it, sets clickedAt once, 302s, and pushes email.link_clicked', async () => {
    const email = await sentEmail();
    expect(email.links.length).toBe(2);
    const link = email.links[0]!;

    const first = await api.request('GET', `/v1/t/c/${link.id}`, {
      headers: { 'x-forwarded-for': '203.0.113.7, 10.0.0.1', 'x-real-ip': '10.9.9.9', 'user-agent': 'Mail/1.0' },
    });
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe(link.originalUrl);
    const afterFirst = await sendRow(email.id);
    expect(afterFirst.clickedAt).toBeInstanceOf(Date);
    expect(afterFirst.status).toBe('clicked');

    const second = await api.request('GET', `/v1/t/c/${link.id}`, { headers: { 'x-real-ip': '198.51.100.4', 'user-agent': 'Other/2.0' } });
    expect(second.status).toBe(302);
    expect((await sendRow(email.id)).clickedAt).toEqual(afterFirst.clickedAt);

    const clicks = await api.deps.db.selectFrom('linkClicks').selectAll().where('trackedLinkId', '=', link.id).orderBy('clickedAt').execute();
    expect(clicks.map((click) => [click.ipAddress, click.userAgent])).toEqual([
      ['203.0.113.7', 'Mail/1.0'],
      ['198.51.100.4', 'Other/2.0'],
    ]);
    const counted = await api.deps.db.selectFrom('trackedLinks').select('clickCount').where('id', '=', link.id).executeTakeFirstOrThrow();
    expect(counted.clickCount).toBe(2);

    const events = await waitFor(
      async () => {
        const rows = await eventsFor(email.userId, 'email.link_clicked');
        return rows.length === 2 ? rows : undefined;
      },
      { what: 'two email.link_clicked events' },
    );
    expect(events[0]!.properties).toEqual({
      emailSendId: email.id,
      templateKey: 'welcome-tips',
      linkUrl: link.originalUrl,
      linkId: link.id,
      machine: false,
      machineReason: null,
    });

    await api.deps.analytics.shutdown();
    const captured = posthog.events.filter((event) => event.distinct_id === email.userId && event.event === 'email.link_clicked');
    expect(captured).toHaveLength(2);
    expect(captured[0]!.properties).toMatchObject({ emailSendId: email.id, linkId: link.id, machine: false, machineReason: null });
  });

  it.each(['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '%27%3B--'])(
    'redirects an unknown or malformed link id (%s) to API_PUBLIC_URL',
    async (id) => {
      const response = await api.request('GET', `/v1/t/c/${id}`);
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(PUBLIC_URL);
    },
  );

  it('serves the 42-byte GIF with no-store caching; the first open sets openedAt and pushes email.opened, later opens write nothing', async () => {
    const email = await sentEmail();
    const first = await fetch(`${api.url}/v1/t/o/${email.id}`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/gif');
    expect(first.headers.get('cache-control')).toBe('no-store, no-cache, must-revalidate');
    expect(first.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const bytes = Buffer.from(await first.arrayBuffer());
    expect(bytes.length).toBe(42);
    expect(bytes.subarray(0, 6).toString('latin1')).toBe('GIF89a');
    const opened = await sendRow(email.id);
    expect(opened.openedAt).toBeInstanceOf(Date);
    expect(opened.status).toBe('opened');

    const again = await fetch(`${api.url}/v1/t/o/${email.id}`);
    expect(Buffer.from(await again.arrayBuffer()).length).toBe(42);
    const later = await sendRow(email.id);
    expect(later.openedAt).toEqual(opened.openedAt);
    expect(later.updatedAt).toEqual(opened.updatedAt);

    const events = await waitFor(
      async () => {
        const rows = await eventsFor(email.userId, 'email.opened');
        return rows.length > 0 ? rows : undefined;
      },
      { what: 'email.opened' },
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await eventsFor(email.userId, 'email.opened')).toHaveLength(1);
    expect(events[0]!.properties).toEqual({ emailSendId: email.id, templateKey: 'welcome-tips', machine: false, machineReason: null });
  });

  it.each(['not-a-uuid', '00000000-0000-4000-8000-000000000000'])('still serves the GIF for a malformed or unknown send id (%s)', async (id) => {
    const response = await fetch(`${api.url}/v1/t/o/${id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/gif');
    expect(Buffer.from(await response.arrayBuffer()).length).toBe(42);
  });

  const headersOf = (headers: Headers) => {
    const named: Record<string, string> = {};
    headers.forEach((value, name) => (named[name] = value));
    return named;
  };

  it('a click and a pixel carry the security headers and the request id every api answer carries', async () => {
    const email = await sentEmail();
    const secure = {
      'content-security-policy': expect.stringContaining("default-src 'self'"),
      'cross-origin-opener-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
      'x-dns-prefetch-control': 'off',
      'x-download-options': 'noopen',
      'x-frame-options': 'SAMEORIGIN',
      'x-permitted-cross-domain-policies': 'none',
      'x-xss-protection': '0',
    };
    const click = await api.request('GET', `/v1/t/c/${email.links[0]!.id}`, { headers: { 'x-request-id': 'click-1' } });
    expect(click.status).toBe(302);
    expect(headersOf(click.headers)).toMatchObject({
      ...secure,
      'cross-origin-resource-policy': 'same-origin',
      'cache-control': 'no-store',
      location: email.links[0]!.originalUrl,
      'x-request-id': 'click-1',
    });
    const pixel = await fetch(`${api.url}/v1/t/o/${email.id}`, { headers: { 'x-request-id': 'pixel-1' } });
    expect(pixel.status).toBe(200);
    expect(headersOf(pixel.headers)).toMatchObject({
      ...secure,
      'cross-origin-resource-policy': 'cross-origin',
      'cache-control': 'no-store, no-cache, must-revalidate',
      'x-request-id': 'pixel-1',
    });
    // recipients are never limited, so their answers carry no budget
    expect(click.headers.get('x-ratelimit-limit')).toBeNull();
    expect(pixel.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('a click waits for its ceiling verdict: records it when within, past the ceiling only reads where the link points', async () => {
    const email = await sentEmail();
    const [within, past] = email.links as [(typeof email.links)[0], (typeof email.links)[0]];
    const hit = { method: 'GET', userAgent: 'Mail/1.0', clientAddress: '203.0.113.9', ipAddress: '203.0.113.9' };
    let answer: (recordable: boolean) => void = () => undefined;
    const late = new Promise<boolean>((resolve) => (answer = resolve));
    const clicks = [api.deps.tracking.followLink(within.id, hit, late), api.deps.tracking.followLink(past.id, hit, Promise.resolve(false))];
    setTimeout(() => answer(true), 100);
    expect(await Promise.all(clicks)).toEqual([within.originalUrl, past.originalUrl]);
    const counts = await api.deps.db.selectFrom('trackedLinks').select(['id', 'clickCount']).where('emailSendId', '=', email.id).execute();
    expect(Object.fromEntries(counts.map((link) => [link.id, link.clickCount]))).toEqual({ [within.id]: 1, [past.id]: 0 });
    // a verdict that fails is that click's failure alone
    await expect(api.deps.tracking.followLink(within.id, hit, Promise.reject(new Error('no verdict')))).rejects.toThrow('no verdict');
  });

  it('an open after a click does not move the status back', async () => {
    const email = await sentEmail();
    await api.request('GET', `/v1/t/c/${email.links[0]!.id}`);
    await fetch(`${api.url}/v1/t/o/${email.id}`);
    const row = await sendRow(email.id);
    expect(row.status).toBe('clicked');
    expect(row.openedAt).toBeInstanceOf(Date);
  });
});
