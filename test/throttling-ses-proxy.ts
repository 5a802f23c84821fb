import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';

/**
 * A test fixture in front of the SES emulator (never in production code): it forwards every call
 * and answers some SendEmail calls the way SES does over the account's maximum send rate (429
 * `TooManyRequestsException`), and, when given a rate, answers GetAccount (which the emulator
 * lacks) with that `MaxSendRate`. Used by the send-rate integration tests and `bench send-rate`.
 */
export interface ThrottlingSesProxy {
  url: string;
  /** SendEmail calls seen / answered with Throttling */
  counts(): { sends: number; throttled: number };
  /** the next `count` SendEmail calls are throttled (on top of `throttleRatio`) */
  throttleNext(count: number): void;
  close(): Promise<void>;
}

export interface ThrottlingSesProxyOptions {
  /** the emulator, e.g. http://127.0.0.1:8005 */
  target: string;
  /** share of SendEmail calls answered with Throttling at random (0–1, default 0) */
  throttleRatio?: number;
  /** answered to GetAccount as SendQuota.MaxSendRate (default: forwarded, and the emulator refuses it) */
  maxSendRate?: number;
}

const SEND_EMAIL = /^\/v2\/email\/outbound-emails\/?$/;
const GET_ACCOUNT = /^\/v2\/email\/account\/?$/;

export async function startThrottlingSesProxy(options: ThrottlingSesProxyOptions): Promise<ThrottlingSesProxy> {
  const target = new URL(options.target);
  let sends = 0;
  let throttled = 0;
  let forced = 0;

  const forward = (incoming: IncomingMessage, body: Buffer, respond: (status: number, headers: IncomingMessage['headers'], data: Buffer) => void) => {
    const outgoing = httpRequest(
      { host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: { ...incoming.headers, host: target.host } },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => respond(answer.statusCode ?? 502, answer.headers, Buffer.concat(chunks)));
      },
    );
    outgoing.on('error', (error) => respond(502, {}, Buffer.from(JSON.stringify({ message: error.message }))));
    outgoing.end(body);
  };

  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const path = (incoming.url ?? '').split('?')[0]!;
      if (options.maxSendRate !== undefined && incoming.method === 'GET' && GET_ACCOUNT.test(path)) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ SendQuota: { Max24HourSend: 50_000, MaxSendRate: options.maxSendRate, SentLast24Hours: 0 }, SendingEnabled: true }));
        return;
      }
      if (incoming.method === 'POST' && SEND_EMAIL.test(path)) {
        sends += 1;
        const throttle = forced > 0 || Math.random() < (options.throttleRatio ?? 0);
        if (throttle) {
          if (forced > 0) forced -= 1;
          throttled += 1;
          response.writeHead(429, { 'content-type': 'application/json', 'x-amzn-errortype': 'TooManyRequestsException' });
          response.end(JSON.stringify({ message: 'Maximum sending rate exceeded.' }));
          return;
        }
      }
      forward(incoming, Buffer.concat(chunks), (status, headers, data) => {
        response.writeHead(status, { ...headers, 'content-length': String(data.length) });
        response.end(data);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => ({ sends, throttled }),
    throttleNext(count) {
      forced += count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
