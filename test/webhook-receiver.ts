import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** the status this request was answered with (0: never answered) */
  status: number;
}

/**
 * Decides the answer of one request: a status (and body), 'hang' (hold the request open, never
 * answer) or 'reset' (close the connection without an answer, as a receiver's idle timeout does to
 * a kept-alive connection that a request reuses just then).
 */
export type Responder = (request: ReceivedWebhook, nthOnPath: number) => number | { status: number; body: string } | 'hang' | 'reset';

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  on(path: string, responder: Responder): void;
  /** the TCP connections opened to the receiver so far */
  connections(): number;
  close(): Promise<void>;
}

/** A local HTTP receiver for outbound webhook tests: records every request, answers per path (200 by default). */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const responders = new Map<string, Responder>();
  const received: ReceivedWebhook[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const entry: ReceivedWebhook = { path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), status: 0 };
      const nth = received.filter((other) => other.path === path).length + 1;
      received.push(entry);
      const answer = (responders.get(path) ?? (() => 200))(entry, nth);
      if (answer === 'hang') return;
      if (answer === 'reset') {
        request.socket.destroy();
        return;
      }
      const { status, body } = typeof answer === 'number' ? { status: answer, body: answer >= 300 ? `receiver says ${answer}` : 'ok' } : answer;
      entry.status = status;
      response.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    });
  });
  let connections = 0;
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    on: (path, responder) => responders.set(path, responder),
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
