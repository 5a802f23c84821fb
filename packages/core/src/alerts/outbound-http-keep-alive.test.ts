import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postJsonBody, type OutboundOptions } from './outbound-http';

const options: OutboundOptions = { timeoutMs: 5_000, connectTimeoutMs: 2_000, allowPrivateTargets: true };

/**
 * A receiver on loopback that answers 200, except that `resets(n)` says, for the n-th request on a
 * connection, to close the connection instead of answering: what a receiver's idle timeout does
 * to a kept-alive connection when it closes it just as our next request goes out.
 */
async function receiver(resets: (nthOnConnection: number) => boolean) {
  const requestsOn = new WeakMap<Socket, number>();
  let connections = 0;
  let answered = 0;
  let reset = 0;
  const server: Server = createServer((request, response) => {
    const nth = (requestsOn.get(request.socket) ?? 0) + 1;
    requestsOn.set(request.socket, nth);
    request.resume();
    request.on('end', () => {
      if (resets(nth)) {
        reset += 1;
        request.socket.destroy();
        return;
      }
      answered += 1;
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    counts: () => ({ connections, answered, reset }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('postJsonBody on kept-alive connections', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(() => close?.());

  it('a kept-alive connection the receiver closed as the request went out is not its failure: the request goes again on a new connection', async () => {
    const target = await receiver((nth) => nth === 2);
    close = target.close;
    expect((await postJsonBody(target.url, '{"n":1}', {}, options)).status).toBe(200);
    // the same connection is reused for the second request, which the receiver resets
    expect((await postJsonBody(target.url, '{"n":2}', {}, options)).status).toBe(200);
    expect(target.counts()).toEqual({ connections: 2, answered: 2, reset: 1 });
  });

  it('a reset on a new connection is the receiver’s answer: it fails, once, with no retry', async () => {
    const target = await receiver(() => true);
    close = target.close;
    await expect(postJsonBody(target.url, '{"n":1}', {}, options)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(target.counts()).toEqual({ connections: 1, answered: 0, reset: 1 });
  });
});
