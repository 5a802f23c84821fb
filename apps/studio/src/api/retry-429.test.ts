import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchRetrying429, MAX_RETRY_WAIT_SECONDS } from './retry-429';

/** A server answering the given statuses in turn (with their Retry-After), recording what it received. */
async function server(answers: { status: number; retryAfter?: number }[]): Promise<{ url: string; bodies: string[]; close(): void }> {
  const bodies: string[] = [];
  const http: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      bodies.push(body);
      const answer = answers[Math.min(bodies.length - 1, answers.length - 1)]!;
      response.writeHead(answer.status, {
        'content-type': 'application/json',
        ...(answer.retryAfter === undefined ? {} : { 'retry-after': String(answer.retryAfter) }),
      });
      response.end(JSON.stringify(answer.status === 429 ? { error: 'Rate limit exceeded' } : { ok: true }));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/v1/admin/journeys`, bodies, close: () => http.close() };
}

describe('fetchRetrying429', () => {
  let close = () => {};
  afterEach(() => close());

  it('waits out a short Retry-After once and sends the request again, body and all', async () => {
    const api = await server([{ status: 429, retryAfter: 1 }, { status: 200 }]);
    close = api.close;
    const response = await fetchRetrying429(new Request(api.url, { method: 'POST', body: '{"name":"x"}', headers: { 'content-type': 'application/json' } }));
    expect(response.status).toBe(200);
    expect(api.bodies).toEqual(['{"name":"x"}', '{"name":"x"}']);
  });

  it('returns a second 429 as it is (the page shows the slow-down panel)', async () => {
    const api = await server([{ status: 429, retryAfter: 0 }]);
    close = api.close;
    const response = await fetchRetrying429(new Request(api.url));
    expect(response.status).toBe(429);
    expect(api.bodies).toHaveLength(2);
  });

  it('does not wait out a long Retry-After, nor retry a 429 without one', async () => {
    for (const retryAfter of [MAX_RETRY_WAIT_SECONDS + 1, undefined]) {
      const api = await server([{ status: 429, ...(retryAfter === undefined ? {} : { retryAfter }) }]);
      close = api.close;
      expect((await fetchRetrying429(new Request(api.url))).status).toBe(429);
      expect(api.bodies).toHaveLength(1);
      api.close();
    }
  });
});
