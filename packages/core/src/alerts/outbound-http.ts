import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isBlockedAddress } from './blocked-addresses';

export interface OutboundOptions {
  timeoutMs: number;
  /** ALERT_ALLOW_PRIVATE_TARGETS: let loopback/private/link-local targets through */
  allowPrivateTargets: boolean;
}

export class OutboundRefusedError extends Error {
  override name = 'OutboundRefusedError';
}

/**
 * The address check runs inside the socket's own DNS lookup, so the address that is checked is
 * the address that is dialled (no DNS-rebinding window between a check and the connect).
 */
function guardedLookup(): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((entry) => isBlockedAddress(entry.address));
      if (refused !== undefined) {
        return callback(new OutboundRefusedError(`refused: ${hostname} resolves to a private, loopback or link-local address (${refused.address})`), '', 0);
      }
      const first = addresses[0];
      if (first === undefined) return callback(new Error(`no address for ${hostname}`), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * POSTs JSON to an operator-configured URL (alert webhooks): http(s) only, a hard timeout,
 * no redirects followed (a 3xx is a failure, so a redirect cannot reach an internal address),
 * and private targets refused unless explicitly allowed. Resolves on 2xx, rejects otherwise.
 */
export async function postJson(target: string, body: unknown, options: OutboundOptions): Promise<void> {
  const url = new URL(target);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRefusedError(`refused: ${url.protocol} URLs are not allowed`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivateTargets && isIP(host) !== 0 && isBlockedAddress(host)) {
    throw new OutboundRefusedError(`refused: ${host} is a private, loopback or link-local address`);
  }
  const payload = Buffer.from(JSON.stringify(body));
  const transport = url.protocol === 'https:' ? https : http;
  await new Promise<void>((resolve, reject) => {
    // one deadline for the whole exchange (connect, send, answer), not a per-read idle timeout
    const timer = setTimeout(() => request.destroy(new Error(`no answer from ${url.host} within ${options.timeoutMs} ms`)), options.timeoutMs);
    const settle = (error?: Error) => {
      clearTimeout(timer);
      if (error === undefined) resolve();
      else reject(error);
    };
    const request = transport.request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(payload.length), 'user-agent': 'waymark-alerts' },
        ...(options.allowPrivateTargets ? {} : { lookup: guardedLookup() }),
      },
      (response) => {
        response.resume();
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) settle();
        else settle(new Error(`${url.host} answered HTTP ${status}`));
      },
    );
    request.on('error', (error) => settle(error));
    request.end(payload);
  });
}
