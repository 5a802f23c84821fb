import { randomBytes, randomUUID } from 'node:crypto';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { createLogger } from '@waymark/core/logging/logger';
import { startTracing, type Tracing } from '@waymark/core/logging/tracing';
import { createWorker } from '../../worker/src/worker';
import { uniqueAddress } from '../../../test/email-emulator';
import { eventually } from '../../../test/eventually';
import { journeyStatesOf } from '../../../test/journey-states';
import { attributeOf, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../../test/otlp-receiver';
import { releaseTaskQueue } from '../../../test/task-queue-cleanup';
import { issueApiKey, startTestApi, type TestApi } from '../../../test/test-api';
import { integrationEnv } from '../../../test/test-env';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/**
 * Tracing on the real stack (docs/operations.md, "Tracing"): the api and a worker of this file's
 * own task queue in this process, with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP
 * receiver in the test; one `user.signed_up` sent with a caller's `traceparent` must come back as
 * one trace, from the request through the outbox and Temporal to the SES call.
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

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    // the SDK reads the standard variables itself (the endpoint, and a short batch delay for the test)
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    process.env.OTEL_BSP_SCHEDULE_DELAY = '100';
    const env = { ...integrationEnv(), TEMPORAL_TASK_QUEUE: taskQueue, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const config = loadConfig(env);
    tracing = await startTracing(config, 'waymark-test');
    db = createDatabase({ connectionString: config.databaseUrl, max: 4 });
    // the worker first: it installs the Temporal runtime of this process before any connection does
    const logger = createLogger({ level: 'error', name: 'tracing-worker', format: 'json', traceIds: true });
    worker = await createWorker({ config, db, logger, tracing });
    running = worker.worker.run();
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, TEMPORAL_TASK_QUEUE: taskQueue, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    ingestKey = await issueApiKey(api, LEGACY, 'tracing-producer', ['ingest']);
  }, 180_000);
  afterAll(async () => {
    worker?.worker.shutdown();
    await running;
    await worker?.close();
    await db?.destroy();
    if (api !== undefined) await releaseTaskQueue(api.deps.temporal.client, taskQueue);
    await api?.close();
    await tracing?.shutdown();
    await receiver?.close();
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
    // by span id: a run's spans can be exported again when its history is replayed
    const traced = () => [...new Map(receiver.spans.filter((span) => span.traceId === traceId).map((span) => [span.spanId, span])).values()];
    await eventually(
      async () => {
        await tracing!.flush();
        return traced().map((span) => `${span.name} ${span.spanId} ← ${span.parentSpanId ?? '-'}`);
      },
      (names) => ['ses SendEmail', 'RunWorkflow:'].every((name) => names.some((line) => line.startsWith(name))),
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
    for (const span of spans) for (const attribute of span.attributes) expect(JSON.stringify(attribute.value)).not.toContain(email);
  });
});
