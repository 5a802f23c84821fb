import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Worker } from '@temporalio/worker';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { createLogger, type AppLogger } from '@waymark/core/logging/logger';
import { startTracing, type Tracing } from '@waymark/core/logging/tracing';
import { createWorker } from '../../worker/src/worker';
import { uniqueAddress } from '../../../test/email-emulator';
import { eventually } from '../../../test/eventually';
import { journeyStatesOf } from '../../../test/journey-states';
import { attributeOf, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../../test/otlp-receiver';
import { releaseTaskQueue } from '../../../test/task-queue-cleanup';
import { issueApiKey, startTestApi, type TestApi } from '../../../test/test-api';
import { integrationEnv } from '../../../test/test-env';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/webhook-receiver';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/** A json logger as server.ts builds it (trace ids on), whose lines this test keeps instead of printing. */
function capturedLogger(): { logger: AppLogger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'http', name: 'tracing-api', format: 'json', traceIds: true });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  // pino's own hook for where a logger writes (its children write there too)
  (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] = sink;
  return { logger, lines };
}

/**
 * Tracing on the real stack (docs/operations.md, "Tracing"): the api and a worker of this file's
 * own task queue in this process, with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP
 * receiver in the test; one `user.signed_up` sent with a caller's `traceparent` must come back as
 * one trace, from the request through the outbox and Temporal to the SES call and the outbound
 * webhook deliveries of what it changed, with the trace id on the api's request line.
 */
describe('tracing: one event, one trace (real stack)', () => {
  const taskQueue = `tracing-${randomUUID()}`;
  const saved = { endpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT, delay: process.env.OTEL_BSP_SCHEDULE_DELAY };
  let receiver: OtlpReceiver;
  let tracing: Tracing | undefined;
  let api: TestApi;
  let ingestKey: string;
  let worker: { worker: Worker; close: () => Promise<void> };
  let running: Promise<void>;
  let db: Db;
  let webhooks: WebhookReceiver;
  let endpointId: string;
  const apiLog = capturedLogger();

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    // the SDK reads the standard variables itself (the endpoint, and a short batch delay for the test)
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    process.env.OTEL_BSP_SCHEDULE_DELAY = '100';
    const settings = { TEMPORAL_TASK_QUEUE: taskQueue, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
    const config = loadConfig({ ...integrationEnv(), ...settings });
    tracing = await startTracing(config, 'waymark-test');
    // as the worker process builds it with tracing on: its statements carry their trace to the triggers
    db = createDatabase({ connectionString: config.databaseUrl, max: 4, traceContext: true });
    webhooks = await startWebhookReceiver();
    // the worker first: it installs the Temporal runtime of this process before any connection does
    const logger = createLogger({ level: 'error', name: 'tracing-worker', format: 'json', traceIds: true });
    worker = await createWorker({ config, db, logger, tracing, dispatchOutbound: true });
    running = worker.worker.run();
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, ...settings }, {}, apiLog.logger);
    ingestKey = await issueApiKey(api, LEGACY, 'tracing-producer', ['ingest']);
    // a change the request makes (the contact) and one the send activity makes (the email sent)
    const created = await api.request('POST', '/v1/admin/webhook-endpoints', {
      token: LEGACY,
      body: { url: `${webhooks.url}/traced?token=${randomUUID()}`, events: ['contact.created', 'email.sent'] },
    });
    expect(created.status, created.text).toBe(201);
    endpointId = created.body.id as string;
  }, 180_000);
  afterAll(async () => {
    if (endpointId !== undefined) await api.request('DELETE', `/v1/admin/webhook-endpoints/${endpointId}`, { token: LEGACY });
    worker?.worker.shutdown();
    await running;
    await worker?.close();
    await db?.destroy();
    if (api !== undefined) await releaseTaskQueue(api.deps.temporal.client, taskQueue);
    await api?.close();
    await tracing?.shutdown();
    await receiver?.close();
    await webhooks?.close();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved.endpoint;
    process.env.OTEL_BSP_SCHEDULE_DELAY = saved.delay;
    if (saved.endpoint === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    if (saved.delay === undefined) delete process.env.OTEL_BSP_SCHEDULE_DELAY;
  }, 60_000);

  it("user.signed_up → one trace under the caller's traceparent: request, effect, workflow, send activity, SES call, in order", async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const userId = `traced-${randomUUID()}`;
    const email = uniqueAddress('traced');
    const response = await api.request('POST', '/v1/events', {
      token: ingestKey,
      headers: { traceparent: `00-${traceId}-${callerSpanId}-01` },
      body: { name: 'user.signed_up', userId, email, eventProperties: { firstName: 'Ada' } },
    });
    expect(response.status).toBe(202);
    // the api's request line carries the trace it belongs to (written once the request span has ended)
    const requestLine = apiLog.lines.find((line) => line.reqId === response.headers.get('x-request-id') && typeof line.status === 'number');
    expect(requestLine, 'the request line').toMatchObject({ status: 202, trace_id: traceId });
    const sendId = await eventually(
      async () => {
        const [state] = await journeyStatesOf(api.deps.db, userId, 'welcome-series');
        if (state === undefined) return undefined;
        const sent = await api.deps.db
          .selectFrom('journeyLogs')
          .select('detail')
          .where('journeyStateId', '=', state.id)
          .where('action', '=', 'email_sent')
          .executeTakeFirst();
        return (sent?.detail as { emailSendId?: string } | undefined)?.emailSendId;
      },
      (id) => id !== undefined,
      { what: 'the welcome email sent' },
    );
    // a run's own span ends with the run: welcome-series sleeps two days after the welcome, so
    // the user is deleted (its exit rule) to end it here
    expect((await api.request('POST', '/v1/events', { token: ingestKey, body: { name: 'user.deleted', userId, eventProperties: {} } })).status).toBe(202);
    const named = (name: string) => (span: ReceivedSpan) => span.name === name;
    // by span id, the first export of each: a run's spans are exported again, with the replay's
    // times, when its history is replayed (the user.deleted signal below may replay it)
    const traced = () => {
      const first = new Map<string, ReceivedSpan>();
      for (const span of receiver.spans) if (span.traceId === traceId && !first.has(span.spanId)) first.set(span.spanId, span);
      return [...first.values()];
    };
    await eventually(
      async () => {
        await tracing!.flush();
        return traced().map((span) => `${span.name} ${span.spanId} ← ${span.parentSpanId ?? '-'}`);
      },
      (names) =>
        ['ses SendEmail', 'RunWorkflow:'].every((name) => names.some((line) => line.startsWith(name))) &&
        names.filter((line) => line.startsWith('webhook deliver ')).length === 2,
      { what: 'the spans of the trace exported', timeoutMs: 40_000, intervalMs: 500 },
    );
    const spans = traced();
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const one = (name: string) => {
      const found = spans.filter(named(name));
      expect(found, name).toHaveLength(1);
      return found[0]!;
    };
    // the chain, each span a descendant of the one before (through the spans Temporal adds between)
    const request = one('POST /v1/events');
    const effect = one('journey effect start');
    const workflow = one('RunWorkflow:journeyWorkflow');
    const ses = one('ses SendEmail');
    // the send activity: welcome-series sends in its first step, which the entry's activity carries (enterJourneyWith…)
    const activity = byId.get(ses.parentSpanId ?? '')!;
    expect(activity.name).toMatch(/^RunActivity:(sendJourneyEmail|enterJourneyWithSendJourneyEmail)$/);
    expect(request.parentSpanId).toBe(callerSpanId);
    const ancestors = (span: ReceivedSpan): string[] => {
      const chain: string[] = [];
      for (
        let at = span.parentSpanId === undefined ? undefined : byId.get(span.parentSpanId);
        at !== undefined;
        at = at.parentSpanId === undefined ? undefined : byId.get(at.parentSpanId)
      )
        chain.push(at.name);
      return chain;
    };
    const chain = [request, effect, workflow, activity, ses];
    const names = chain.map((span) => span.name);
    expect(
      ancestors(ses)
        .filter((name) => names.includes(name))
        .reverse(),
    ).toEqual(names.slice(0, -1));
    const starts = chain.map((span) => BigInt(span.startTimeUnixNano));
    expect([...starts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(starts);

    // ids as attributes, never an address
    expect(attributeOf(ses, 'waymark.send.id')).toBe(sendId);
    expect(attributeOf(ses, 'waymark.template')).toBe('welcome');
    expect(attributeOf(activity, 'waymark.journey.id')).toBe('welcome-series');
    expect(attributeOf(activity, 'waymark.user.id')).toBe(userId);
    expect(attributeOf(effect, 'waymark.journey.id')).toBe('welcome-series');

    // each outbound webhook delivery continues the trace of the work whose change it reports: the
    // contact the request created, the email the send activity sent
    const deliveries = spans.filter(named('webhook deliver'));
    const deliveryOf = (type: string) => {
      const found = deliveries.filter((span) => attributeOf(span, 'waymark.webhook.event.type') === type);
      expect(found, type).toHaveLength(1);
      return found[0]!;
    };
    const contactCreated = deliveryOf('contact.created');
    const emailSent = deliveryOf('email.sent');
    expect(ancestors(contactCreated)).toContain(request.name);
    expect(ancestors(emailSent)).toEqual(expect.arrayContaining([activity.name, workflow.name, request.name]));
    const rows = await api.deps.db.selectFrom('webhookDeliveries').select(['id', 'eventType']).where('endpointId', '=', endpointId).execute();
    for (const delivery of [contactCreated, emailSent]) {
      expect(attributeOf(delivery, 'waymark.webhook.endpoint.id')).toBe(endpointId);
      const row = rows.find((candidate) => candidate.id === attributeOf(delivery, 'waymark.webhook.delivery.id'));
      expect(row?.eventType).toBe(attributeOf(delivery, 'waymark.webhook.event.type'));
      expect(attributeOf(delivery, 'waymark.webhook.outcome')).toBe('delivered');
    }
    for (const span of spans)
      for (const attribute of span.attributes) {
        expect(JSON.stringify(attribute.value)).not.toContain(email);
        expect(JSON.stringify(attribute.value)).not.toContain(webhooks.url);
      }
  });

  it('a request span keeps the path of a link, never its token: reset, invitation and preference pages', async () => {
    const token = `tok-${randomUUID()}`;
    const traceId = randomBytes(16).toString('hex');
    const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
    for (const path of [`/studio/reset-password?token=${token}`, `/studio/accept-invite?token=${token}`, `/v1/email/preferences?token=${token}`]) {
      await api.request('GET', path, { headers: { traceparent } });
    }
    // the request spans (their handlers' spans, which may be exported first, carry no URL)
    const pathsOf = (found: typeof receiver.spans) =>
      found.flatMap((span) => (attributeOf(span, 'url.path') === undefined ? [] : [attributeOf(span, 'url.path')]));
    const spans = await eventually(
      () => Promise.resolve(receiver.spans.filter((span) => span.traceId === traceId)),
      (found) => pathsOf(found).length >= 3,
      { what: 'the three request spans exported', timeoutMs: 20_000, intervalMs: 200 },
    );
    const paths = pathsOf(spans);
    expect(paths.sort()).toEqual(['/studio/accept-invite', '/studio/reset-password', '/v1/email/preferences']);
    expect(JSON.stringify(spans)).not.toContain(token);
  });
});
