import { randomInt, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSesTransport } from '@waymark/email/ses-transport';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { deploymentCategories } from '../../../../test/deployment-categories';
import { createEmailDeps } from '../emails/create-email-deps';
import { sendEmail } from '../emails/send-email';
import { loadConfig } from '../config/config';
import { createDatabase, type Db } from '../db/database';
import type { AlertChannel, JsonObject } from '../db/schema';
import { emailsTo, uniqueAddress, waitFor } from '../../../../test/email-emulator';
import { integrationEnv } from '../../../../test/test-env';
import { createAlertMailer } from './alert-mailer';
import { evaluateAlertRule, type AlertEvaluationDeps } from './evaluate-alert-rule';

interface Received {
  method: string | undefined;
  path: string | undefined;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** A local receiver standing in for Slack / a webhook endpoint; answers `status` to every request. */
async function startReceiver(): Promise<{ server: Server; port: number; received: Received[]; answer: { status: number } }> {
  const received: Received[] = [];
  const answer = { status: 200 };
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ method: request.method, path: request.url, headers: request.headers, body: JSON.parse(body) });
      response.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.status === 200 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, received, answer };
}

/**
 * The chat and email channels and delivery failures, through `evaluateAlertRule` with real
 * dependencies: the test database, the SES transport against the emulator, and real HTTP to a
 * local receiver. Each test judges its own hour far in the past, seeded with its own sends, so
 * sends written by other tests (at the real time) never enter its window.
 */
describe('alert delivery channels (real database, SES emulator, local receiver)', () => {
  const env = integrationEnv();
  let db: Db;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const ruleIds: string[] = [];
  // a random past hour per run; each test takes the next 3-hour slot
  const base = Date.UTC(1995, 0, 1) + randomInt(0, 50_000) * 6 * 3_600_000;
  let slot = 0;

  /** dependencies exactly as the worker builds them, from config (ALERT_ALLOW_PRIVATE_TARGETS as given) */
  function depsFor(allowPrivateTargets: boolean): AlertEvaluationDeps {
    const config = loadConfig({ ...env, ALERT_ALLOW_PRIVATE_TARGETS: String(allowPrivateTargets), ALERT_HTTP_TIMEOUT_MS: '3000' });
    const transport = createSesTransport({
      region: config.email.sesRegion,
      endpoint: config.email.sesEndpoint,
      configurationSet: config.email.sesConfigurationSet,
      apiKey: config.email.providerApiKey,
    });
    // the send path as the worker builds it (the worker wraps each send in a system-email run)
    const email = createEmailDeps(config, { db, templates: emailTemplates, categories: deploymentCategories, transport });
    return {
      db,
      mailer: createAlertMailer((input) => sendEmail(email, input)),
      outbound: { timeoutMs: config.alerts.httpTimeoutMs, allowPrivateTargets: config.alerts.allowPrivateTargets },
      keys: config.encryptionKeys,
    };
  }

  /** 10 sends in the hour before the returned time, 3 of them bounced: a bounce rate of 0.3 */
  async function bouncyHour(): Promise<Date> {
    const now = new Date(base + slot++ * 3 * 3_600_000);
    const at = new Date(now.getTime() - 10 * 60_000);
    await db
      .insertInto('emailSends')
      .values(
        Array.from({ length: 10 }, (_, i) => ({
          templateKey: 'alert-test',
          fromEmail: 'f@waymark-test.example',
          toEmail: `alert-${i}@waymark-test.example`,
          status: i < 3 ? ('bounced' as const) : ('delivered' as const),
          sentAt: at,
          ...(i < 3 ? { bouncedAt: at } : { deliveredAt: at }),
        })),
      )
      .execute();
    return now;
  }

  async function createRule(channel: AlertChannel, channelConfig: JsonObject): Promise<string> {
    const rule = await db
      .insertInto('alertRules')
      .values({
        name: `alert-test-${randomUUID().slice(0, 8)}`,
        type: 'bounce_rate_exceeded',
        threshold: 0.1,
        channel,
        channelConfig: JSON.stringify(channelConfig),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ruleIds.push(rule.id);
    return rule.id;
  }

  const historyOf = (ruleId: string) => db.selectFrom('alertHistory').selectAll().where('ruleId', '=', ruleId).execute();

  beforeAll(async () => {
    db = createDatabase({ connectionString: env.DATABASE_URL, max: 2 });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    // other tests of the run may evaluate every enabled rule: leave none of ours behind
    if (ruleIds.length > 0) await db.deleteFrom('alertRules').where('id', 'in', ruleIds).execute();
    await db.deleteFrom('emailSends').where('templateKey', '=', 'alert-test').execute();
    await new Promise((resolve) => receiver?.server.close(resolve));
    await db?.destroy();
  });

  it('chat: POSTs a Slack incoming-webhook payload {text, channel} to the receiver (loopback allowed by the flag)', async () => {
    receiver.answer.status = 200;
    const ruleId = await createRule('chat', { webhookUrl: `http://127.0.0.1:${receiver.port}/services/T000/B000/XXX`, channel: '#ops-alerts' });
    const now = await bouncyHour();
    const before = receiver.received.length;

    const outcome = await evaluateAlertRule(depsFor(true), ruleId, now);

    expect(outcome).toEqual({ ruleId, outcome: 'fired', value: 0.3, delivered: true });
    const calls = receiver.received.slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'POST', path: '/services/T000/B000/XXX', headers: { 'content-type': 'application/json' } });
    const body = calls[0]!.body as Record<string, unknown>;
    // exactly the Slack keys: a chat webhook rejects unknown top-level fields in some implementations
    expect(Object.keys(body).sort()).toEqual(['channel', 'text']);
    expect(body.channel).toBe('#ops-alerts');
    expect(body.text).toMatch(
      /^\[Waymark\] alert-test-\w+: bounce_rate_exceeded is 30\.00% \(over 10 emails sent in the last hour\), above the threshold of 10\.00%$/,
    );
    expect(await historyOf(ruleId)).toEqual([
      expect.objectContaining({ channel: 'chat', delivered: true, error: null, currentValue: 0.3, threshold: 0.1, triggeredAt: now }),
    ]);
  });

  it('chat without a channel sends only {text}', async () => {
    receiver.answer.status = 200;
    const ruleId = await createRule('chat', { webhookUrl: `http://127.0.0.1:${receiver.port}/hook` });
    const now = await bouncyHour();
    const before = receiver.received.length;

    expect(await evaluateAlertRule(depsFor(true), ruleId, now)).toMatchObject({ outcome: 'fired', delivered: true });
    const calls = receiver.received.slice(before);
    expect(calls).toHaveLength(1);
    expect(Object.keys(calls[0]!.body as object)).toEqual(['text']);
  });

  it('email: sends the notice through the send path (a ledger row); it arrives at the emulator', async () => {
    const to = uniqueAddress('alert');
    const ruleId = await createRule('email', { to });
    const now = await bouncyHour();

    expect(await evaluateAlertRule(depsFor(false), ruleId, now)).toEqual({ ruleId, outcome: 'fired', value: 0.3, delivered: true });

    const emails = await waitFor(
      async () => {
        const found = await emailsTo(to);
        return found.length > 0 ? found : undefined;
      },
      { what: 'the alert email in the SES emulator' },
    );
    expect(emails).toHaveLength(1);
    const rule = await db.selectFrom('alertRules').select('name').where('id', '=', ruleId).executeTakeFirstOrThrow();
    expect(emails[0]).toMatchObject({ from: env.EMAIL_FROM, subject: `Waymark alert: ${rule.name}` });
    expect(emails[0]!.body.text).toContain(`[Waymark] ${rule.name}: bounce_rate_exceeded is 30.00%`);
    expect(await historyOf(ruleId)).toEqual([expect.objectContaining({ channel: 'email', delivered: true, error: null })]);
    // a row in the email ledger like every send, keyed by the rule and its firing
    const rows = await db.selectFrom('emailSends').select(['templateKey', 'status', 'idempotencyKey']).where('toEmail', '=', to).execute();
    expect(rows).toEqual([{ templateKey: 'system-alert', status: 'sent', idempotencyKey: `alert:${ruleId}:${now.toISOString()}:${to}` }]);
  });

  it('a receiver answering 500 → history delivered: false with the error; the cooldown still starts', async () => {
    receiver.answer.status = 500;
    const ruleId = await createRule('chat', { webhookUrl: `http://127.0.0.1:${receiver.port}/down` });
    const now = await bouncyHour();
    const before = receiver.received.length;

    const outcome = await evaluateAlertRule(depsFor(true), ruleId, now);

    expect(outcome).toMatchObject({ ruleId, outcome: 'fired', delivered: false, error: expect.stringContaining('answered HTTP 500') });
    expect(receiver.received.length - before).toBe(1);
    expect(await historyOf(ruleId)).toEqual([expect.objectContaining({ delivered: false, error: expect.stringContaining('answered HTTP 500') })]);
    const rule = await db.selectFrom('alertRules').select('lastTriggeredAt').where('id', '=', ruleId).executeTakeFirstOrThrow();
    expect(rule.lastTriggeredAt).toEqual(now);
    expect(await evaluateAlertRule(depsFor(true), ruleId, new Date(now.getTime() + 60_000))).toEqual({ ruleId, outcome: 'cooldown' });
    receiver.answer.status = 200;
  });

  it.each([
    ['a loopback IP', (port: number) => `http://127.0.0.1:${port}/hook`, /refused: 127\.0\.0\.1/],
    // the name resolves to loopback: refused inside the socket's DNS lookup
    ['a name resolving to loopback', (port: number) => `http://localhost:${port}/hook`, /refused: localhost resolves to/],
  ])('with the flag off, %s is refused (nothing reaches the receiver) → delivered: false', async (_name, target, error) => {
    receiver.answer.status = 200;
    const ruleId = await createRule('chat', { webhookUrl: target(receiver.port) });
    const now = await bouncyHour();
    const before = receiver.received.length;

    const outcome = await evaluateAlertRule(depsFor(false), ruleId, now);

    expect(outcome).toMatchObject({ ruleId, outcome: 'fired', delivered: false, error: expect.stringMatching(error) });
    expect(receiver.received.length).toBe(before);
    expect(await historyOf(ruleId)).toEqual([expect.objectContaining({ channel: 'chat', delivered: false, error: expect.stringMatching(error) })]);
  });
});
