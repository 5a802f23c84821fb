import { createHash, createSign, generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { snsStringToSign, type SnsMessage } from '@waymark/email/sns-message';
import { sesEventsFor, type AcceptedMessage } from './mailbox-simulator';

/**
 * The local stack's SES event publishing (docs/email.md, "Provider webhooks"). It stands in front
 * of the SES emulator (SES_ENDPOINT points here): every request is passed on as it is, and each
 * SendEmail the emulator accepts through a configuration set with a destination here becomes that
 * configuration set's events (Send, then Delivery, Bounce or Complaint as SES's mailbox simulator
 * would), posted to the destination as Amazon SNS posts them: one signed Notification per event,
 * Basic credentials from the subscription URL, retried on a 5xx or no answer, dropped on a 4xx.
 *
 * Signed with a key made at start-up. Its public half is served at `/sns-dev-cert-<fingerprint>.pem`
 * here, an address the api trusts only when told (EMAIL_PROVIDER_SNS_DEV_CERT_URL, refused in
 * production); the fingerprint in the path makes a restarted publisher's new key a new URL, as
 * the api keeps each certificate it has fetched.
 */
export interface SesEventPublisherOptions {
  /** the SES emulator every request is passed on to */
  emulatorUrl: string;
  /** configuration set name → subscription URL (`http://sns:<secret>@host/v1/webhooks/email-provider`) */
  destinations?: Record<string, string>;
  port?: number;
  host?: string;
  region?: string;
  log?: (line: string) => void;
  /** told of each message the emulator accepts through a configuration set (the chaos run's ledger of what SES accepted) */
  onAccepted?: (message: AcceptedMessage) => void;
}

export interface SesEventPublisher {
  /** where SES_ENDPOINT should point */
  url: string;
  /** what EMAIL_PROVIDER_SNS_DEV_CERT_URL should be: every signing certificate URL of this publisher starts with it */
  certificateUrlPrefix: string;
  /** adds (or replaces) a configuration set's event destination */
  subscribe(configurationSet: string, subscriptionUrl: string): void;
  /** resolves once every event of the messages accepted so far has been posted (or given up) */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const SEND_EMAIL_PATH = '/v2/email/outbound-emails';
/** SNS retries an HTTP delivery for minutes: long enough here for an api restart to come back (about five minutes in all) */
const RETRY_DELAYS_MS = [200, 1_000, 2_000, 5_000, 10_000, 20_000, 30_000, 60_000, 60_000, 60_000, 60_000];

export async function startSesEventPublisher(options: SesEventPublisherOptions): Promise<SesEventPublisher> {
  const region = options.region ?? 'us-east-1';
  const log = options.log ?? (() => undefined);
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const certificatePath = `/sns-dev-cert-${createHash('sha256').update(publicPem).digest('hex').slice(0, 16)}.pem`;
  const pending = new Set<Promise<void>>();
  const destinations = new Map(Object.entries(options.destinations ?? {}));
  let origin = '';

  const sign = (topicArn: string, message: string): SnsMessage => {
    const unsigned: SnsMessage = {
      Type: 'Notification',
      MessageId: randomUUID(),
      TopicArn: topicArn,
      Message: message,
      Timestamp: new Date().toISOString(),
      SignatureVersion: '2',
      Signature: '',
      SigningCertURL: `${origin}${certificatePath}`,
      UnsubscribeURL: `${origin}/unsubscribe?SubscriptionArn=${encodeURIComponent(topicArn)}`,
    };
    const signer = createSign('RSA-SHA256');
    signer.update(snsStringToSign(unsigned), 'utf8');
    return { ...unsigned, Signature: signer.sign(privatePem, 'base64') };
  };

  /** One SNS HTTP delivery: retried on a 5xx or no answer, dropped on anything else that is not 2xx. */
  const deliver = async (destination: string, body: SnsMessage): Promise<void> => {
    const url = new URL(destination);
    const authorization =
      url.username === '' ? undefined : `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    url.username = '';
    url.password = '';
    for (let attempt = 0; ; attempt += 1) {
      let status = 0;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'text/plain; charset=UTF-8',
            'x-amz-sns-message-type': body.Type,
            'x-amz-sns-message-id': body.MessageId,
            'x-amz-sns-topic-arn': body.TopicArn,
            ...(authorization === undefined ? {} : { authorization }),
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(15_000),
        });
        status = response.status;
        await response.arrayBuffer();
      } catch {
        status = 0;
      }
      if (status >= 200 && status < 300) return;
      if (status >= 400 && status < 500) {
        log(`ses-events: ${url.origin}${url.pathname} answered ${status} to ${body.MessageId}; dropped, as SNS drops a 4xx`);
        return;
      }
      const delay = RETRY_DELAYS_MS[attempt];
      if (delay === undefined) {
        log(`ses-events: gave up on ${body.MessageId} after ${attempt + 1} attempts (last: ${status || 'no answer'})`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  };

  const publish = (accepted: AcceptedMessage) => {
    const destination = destinations.get(accepted.configurationSet);
    if (destination === undefined) return;
    const topicArn = `arn:aws:sns:${region}:000000000000:${accepted.configurationSet}`;
    // in order, one after the other, as the events happen (a delivery cannot precede its send)
    const run = (async () => {
      for (const event of sesEventsFor(accepted)) await deliver(destination, sign(topicArn, JSON.stringify(event)));
    })();
    pending.add(run);
    void run.finally(() => pending.delete(run));
  };

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      log(`ses-events: ${(error as Error).message}`);
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ message: 'ses-events: the SES emulator did not answer' }));
    });
  });

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'GET' && request.url === certificatePath) {
      response.writeHead(200, { 'content-type': 'application/x-pem-file' });
      response.end(publicPem);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (value === undefined || name === 'host' || name === 'connection' || name === 'content-length') continue;
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const answer = await fetch(new URL(request.url ?? '/', options.emulatorUrl), {
      method: request.method ?? 'GET',
      headers,
      ...(body.length === 0 || request.method === 'GET' || request.method === 'HEAD' ? {} : { body }),
    });
    const answered = Buffer.from(await answer.arrayBuffer());
    const passOn: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (name !== 'content-length' && name !== 'transfer-encoding' && name !== 'connection' && name !== 'content-encoding') passOn[name] = value;
    });
    // published after the answer is on its way, as SES publishes after it accepts
    if (request.method === 'POST' && request.url === SEND_EMAIL_PATH && answer.ok) {
      const accepted = acceptedMessage(body, answered);
      if (accepted !== undefined) {
        options.onAccepted?.(accepted);
        publish(accepted);
      }
    }
    response.writeHead(answer.status, passOn);
    response.end(answered);
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  origin = `http://${address.address}:${address.port}`;
  return {
    url: origin,
    certificateUrlPrefix: `${origin}/`,
    subscribe: (configurationSet, subscriptionUrl) => void destinations.set(configurationSet, subscriptionUrl),
    idle: async () => {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The message a SendEmail request (SESv2 JSON) and the emulator's answer describe, when it went through a configuration set. */
function acceptedMessage(request: Buffer, answer: Buffer): AcceptedMessage | undefined {
  try {
    const sent = JSON.parse(request.toString('utf8')) as {
      ConfigurationSetName?: string;
      FromEmailAddress?: string;
      Destination?: { ToAddresses?: string[] };
      EmailTags?: { Name: string; Value: string }[];
    };
    const { MessageId } = JSON.parse(answer.toString('utf8')) as { MessageId?: string };
    const to = sent.Destination?.ToAddresses?.[0];
    if (sent.ConfigurationSetName === undefined || MessageId === undefined || to === undefined) return undefined;
    return {
      messageId: MessageId,
      from: sent.FromEmailAddress ?? '',
      to,
      configurationSet: sent.ConfigurationSetName,
      tags: (sent.EmailTags ?? []).map((tag) => ({ name: tag.Name, value: tag.Value })),
      at: new Date(),
    };
  } catch {
    return undefined;
  }
}
