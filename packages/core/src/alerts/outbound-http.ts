import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isBlockedAddress, isMetadataAddress } from './blocked-addresses';

export interface OutboundOptions {
  timeoutMs: number;
  /**
   * fail when no connection is made by then, well before `timeoutMs`: an address that drops
   * packets would otherwise hold the attempt (and its slot) for the whole answer deadline
   */
  connectTimeoutMs?: number;
  /**
   * ALERT_ALLOW_PRIVATE_TARGETS / WEBHOOK_ALLOW_PRIVATE_TARGETS: let loopback and private targets
   * through (receivers on your own network); link-local and cloud metadata addresses stay refused
   */
  allowPrivateTargets: boolean;
}

export class OutboundRefusedError extends Error {
  override name = 'OutboundRefusedError';
}

/** Which addresses a call may not reach, and how its refusal names them. */
interface AddressRule {
  refuses: (address: string) => boolean;
  what: string;
}
const RULES = {
  // the default: global unicast only
  guarded: { refuses: isBlockedAddress, what: 'a private, loopback or link-local address' },
  // *_ALLOW_PRIVATE_TARGETS: your own network, but never the instance's metadata and credentials
  private: { refuses: isMetadataAddress, what: 'a link-local or cloud metadata address, refused even with private targets allowed' },
} as const satisfies Record<string, AddressRule>;
type RuleName = keyof typeof RULES;
const ruleOf = (options: OutboundOptions): RuleName => (options.allowPrivateTargets ? 'private' : 'guarded');

/**
 * The address check runs inside the socket's own DNS lookup, so the address that is checked is
 * the address that is dialled (no DNS-rebinding window between a check and the connect).
 */
function guardedLookup(rule: AddressRule): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((entry) => rule.refuses(entry.address));
      if (refused !== undefined) {
        return callback(new OutboundRefusedError(`refused: ${hostname} resolves to ${rule.what} (${refused.address})`), '', 0);
      }
      const first = addresses[0];
      if (first === undefined) return callback(new Error(`no address for ${hostname}`), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * Kept-alive connections, pooled apart by the address rule their connection was checked under: a
 * socket opened for a call that may reach private targets (ALERT_ALLOW_PRIVATE_TARGETS) would
 * otherwise carry a later call to the same host and port that may not (outbound webhooks), past a
 * check that runs only on connect (docs/security.md).
 */
const POOLS: Record<RuleName, { 'http:': http.Agent; 'https:': https.Agent }> = {
  guarded: { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) },
  private: { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) },
};

export interface OutboundResponse {
  status: number;
  /** the first RESPONSE_BODY_LIMIT bytes of the answer (UTF-8), for operators' diagnostics */
  body: string;
  durationMs: number;
}

/** How much of a receiver's answer is kept: enough to read an error message, never a whole page. */
export const RESPONSE_BODY_LIMIT = 1024;

function assertAllowedTarget(url: URL, options: OutboundOptions): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRefusedError(`refused: ${url.protocol} URLs are not allowed`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const rule = RULES[ruleOf(options)];
  if (isIP(host) !== 0 && rule.refuses(host)) throw new OutboundRefusedError(`refused: ${host} is ${rule.what}`);
}

/**
 * POSTs a JSON body to an operator-configured URL (alert and outbound webhooks): http(s) only,
 * one deadline for the whole exchange, no redirects followed (a 3xx is an answer like any other,
 * so a redirect cannot reach an internal address), private targets refused unless explicitly
 * allowed, and link-local and cloud metadata addresses refused always. Resolves with any HTTP answer; rejects when there was none (refused,
 * network error, timeout).
 *
 * A kept-alive connection the receiver closed as the request went out (its idle timeout, e.g. 5 s
 * for a Node server, racing our reuse) is reset before any answer: the request goes again on
 * another connection, within the same deadline, instead of counting as the receiver's failure,
 * which would hold a healthy webhook endpoint back (docs/webhooks.md). A reset on a new connection is
 * the receiver's answer and is not retried.
 */
export async function postJsonBody(target: string, body: string, headers: Record<string, string>, options: OutboundOptions): Promise<OutboundResponse> {
  const url = new URL(target);
  assertAllowedTarget(url, options);
  const payload = Buffer.from(body);
  const started = performance.now();
  for (;;) {
    const outcome = await exchange(url, payload, headers, options, started);
    if (outcome !== STALE_SOCKET) return outcome;
  }
}

/** What an exchange on a kept-alive socket the receiver had already closed ends in: try again. */
const STALE_SOCKET = Symbol('stale kept-alive socket');

function exchange(
  url: URL,
  payload: Buffer,
  headers: Record<string, string>,
  options: OutboundOptions,
  started: number,
): Promise<OutboundResponse | typeof STALE_SOCKET> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const remainingMs = Math.max(0, options.timeoutMs - (performance.now() - started));
    const timer = setTimeout(() => request.destroy(new Error(`no answer from ${url.host} within ${options.timeoutMs} ms`)), remainingMs);
    const request = transport.request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(payload.length), ...headers },
        agent: POOLS[ruleOf(options)][url.protocol === 'https:' ? 'https:' : 'http:'],
        lookup: guardedLookup(RULES[ruleOf(options)]),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (kept >= RESPONSE_BODY_LIMIT) return;
          chunks.push(chunk.subarray(0, RESPONSE_BODY_LIMIT - kept));
          kept += Math.min(chunk.length, RESPONSE_BODY_LIMIT - kept);
          // the rest of a long answer is not read: the status is all that matters
          if (kept >= RESPONSE_BODY_LIMIT) response.destroy();
        });
        const finish = () => {
          clearTimeout(timer);
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            durationMs: Math.round(performance.now() - started),
          });
        };
        response.on('end', finish);
        response.on('close', finish);
        response.on('error', finish);
      },
    );
    const { connectTimeoutMs } = options;
    if (connectTimeoutMs !== undefined) {
      request.on('socket', (socket) => {
        if (!socket.connecting) return;
        const connectTimer = setTimeout(() => request.destroy(new Error(`could not connect to ${url.host} within ${connectTimeoutMs} ms`)), connectTimeoutMs);
        socket.once('connect', () => clearTimeout(connectTimer));
        socket.once('close', () => clearTimeout(connectTimer));
      });
    }
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // the pattern Node's http documentation gives for `request.reusedSocket`
      if (request.reusedSocket && error.code === 'ECONNRESET') resolve(STALE_SOCKET);
      else reject(error);
    });
    request.end(payload);
  });
}

/** POSTs JSON (alert webhooks); resolves on 2xx, rejects otherwise. */
export async function postJson(target: string, body: unknown, options: OutboundOptions): Promise<void> {
  const response = await postJsonBody(target, JSON.stringify(body), { 'user-agent': 'waymark-alerts' }, options);
  if (response.status < 200 || response.status >= 300) throw new Error(`${new URL(target).host} answered HTTP ${response.status}`);
}
