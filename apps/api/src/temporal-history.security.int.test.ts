import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { ApplicationFailure } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfig } from '@waymark/core/config/config';
import { temporalConnectionOptions } from '@waymark/temporal/connection';
import { dataConverterFor, openHistory } from '@waymark/temporal/payload-codec';
import type { RefusingActivities } from '@waymark/temporal/test/refusing-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../test/eventually';
import { failingJourneyRun } from '../../../test/failing-journey-run';
import { temporalCliPath } from '../../../test/throwaway-services';
import { journeyStatesOf } from '../../../test/journey-states';
import { issueApiKey, startTestApi, type TestApi } from '../../../test/test-api';
import { integrationEnv } from '../../../test/test-env';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/** Every payload's bytes of a history as Temporal keeps it, as text: where an address or a link would show. */
const payloadText = (history: object) =>
  [...JSON.stringify(history).matchAll(/"data":"([A-Za-z0-9+/=]+)"/g)].map((match) => Buffer.from(match[1] ?? '', 'base64').toString('utf8')).join('\n');

describe("Temporal's history holds sealed payloads (docs/security.md)", () => {
  let api: TestApi;
  let ingestKey: string;
  beforeAll(async () => {
    api = await startTestApi({ ADMIN_API_KEY: LEGACY });
    ingestKey = await issueApiKey(api, LEGACY, 'producer', ['ingest']);
  });
  afterAll(() => api.close());

  it("a run's input, its email's data and its results are sealed under ENCRYPTION_KEYS; the worker opens them and sends", async () => {
    const keys = loadConfig(integrationEnv()).encryptionKeys;
    expect(keys?.length).toBeGreaterThan(0);
    const userId = `u-${randomUUID()}`;
    const email = `${userId}@example.com`;
    const firstName = `Zq${randomUUID().slice(0, 8)}`;
    const posted = await api.request('POST', '/v1/events', {
      token: ingestKey,
      body: { name: 'user.signed_up', userId, email, eventProperties: { firstName } },
    });
    expect(posted.status, posted.text).toBe(202);
    // the welcome email went out with the first name: the worker opened what the api sealed
    const [state] = await eventually(
      () => journeyStatesOf(api.deps.db, userId, 'welcome-series'),
      (rows) => rows[0]?.status === 'waiting' && rows[0].currentNodeId === 'sleep:2 days',
    );
    const sent = await api.deps.db.selectFrom('emailSends').select(['templateKey', 'data', 'toEmail']).where('journeyStateId', '=', state!.id).execute();
    expect(sent).toEqual([{ templateKey: 'welcome', toEmail: email, data: expect.objectContaining({ firstName }) }]);

    const stored = await api.deps.temporal.client.workflow.getHandle(state!.workflowId).fetchHistory();
    const kept = payloadText(stored);
    expect(kept).not.toContain(email);
    expect(kept).not.toContain(firstName);
    const sealed = Buffer.from('binary/encrypted').toString('base64');
    expect(JSON.stringify(stored)).toContain(sealed);
    // what stays readable: the search attributes runs are found by (Temporal cannot index a sealed value)
    const searchable = payloadText(
      stored.events?.flatMap(
        (event) => event.upsertWorkflowSearchAttributesEventAttributes ?? event.workflowExecutionStartedEventAttributes?.searchAttributes ?? [],
      ) ?? [],
    );
    expect(searchable).toContain(userId);
    // the same history opened with the keys: the values were there, sealed
    const opened = payloadText(openHistory(stored, keys));
    expect(opened).toContain(email);
    expect(opened).toContain(firstName);
    expect(JSON.stringify(stored)).not.toContain(sealed);

    // the Temporal CLI (as the Web UI does) reads them through the api's codec endpoint, with a full-admin key
    const show = (...codec: string[]) =>
      promisify(execFile)(temporalCliPath(), [
        'workflow',
        'show',
        '--address',
        api.config.temporal.address,
        '--namespace',
        api.config.temporal.namespace,
        '--workflow-id',
        state!.workflowId,
        '--output',
        'json',
        ...codec,
      ]).then((result) => result.stdout);
    expect(payloadText(JSON.parse(await show()) as object)).not.toContain(email);
    const decoded = payloadText(JSON.parse(await show('--codec-endpoint', `${api.url}/v1/admin/temporal-codec`, '--codec-auth', `Bearer ${LEGACY}`)) as object);
    expect(decoded).toContain(email);
    expect(decoded).toContain(firstName);
  }, 60_000);

  /** The history as Temporal keeps it, as text: its fields (a failure's message and stack are fields) and its payloads' bytes. */
  const historyText = (history: object) => `${JSON.stringify(history)}\n${payloadText(history)}`;
  const failureOf = (error: unknown): string[] => (error instanceof Error ? [error.message, ...failureOf((error as { cause?: unknown }).cause)] : []);

  it("a failed activity's message, as a provider's refusal quoting the address, is sealed; a client with the keys reads it", async () => {
    const address = `refused-${randomUUID()}@example.com`;
    const connection = await NativeConnection.connect(temporalConnectionOptions(api.deps.config.temporal));
    try {
      // a fixture workflow on a worker of its own, with the data converter every worker has
      const taskQueue = `refusing-${randomUUID()}`;
      const activities: RefusingActivities = {
        refuse: async (to) => {
          throw ApplicationFailure.nonRetryable(`550 5.1.1 <${to}>: mailbox unavailable`, 'Refused');
        },
      };
      const worker = await Worker.create({
        connection,
        namespace: api.deps.config.temporal.namespace,
        taskQueue,
        workflowsPath: createRequire(import.meta.url).resolve('@waymark/temporal/test/refusing-workflow'),
        ...dataConverterFor(api.deps.config.encryptionKeys),
        activities,
      });
      const handle = await api.deps.temporal.client.workflow.start('refusingWorkflow', {
        taskQueue,
        workflowId: `refusing-${randomUUID()}`,
        args: [address],
        workflowExecutionTimeout: '30 seconds',
      });
      const failed = await worker.runUntil(
        handle.result().then(
          () => undefined,
          (error: unknown) => error,
        ),
      );
      expect(failureOf(failed).join('\n')).toContain(`<${address}>: mailbox unavailable`);
      const stored = await handle.fetchHistory();
      expect(stored.events?.some((event) => event.activityTaskFailedEventAttributes != null)).toBe(true);
      expect(historyText(stored)).not.toContain(address);
      expect(historyText(openHistory(stored, api.deps.config.encryptionKeys))).toContain(address);
    } finally {
      await connection.close();
    }
  }, 60_000);

  it("a run's own failure (the journey runner's, with the worker's workflow bundle) is sealed too", async () => {
    const { address, handle, failure } = await failingJourneyRun(api.deps.temporal.client, api.deps.config.temporal.taskQueue);
    expect(failureOf(failure).join('\n')).toContain(`Unknown journey '${address}'`);
    const stored = await handle.fetchHistory();
    expect(stored.events?.some((event) => event.workflowExecutionFailedEventAttributes != null)).toBe(true);
    expect(historyText(stored)).not.toContain(address);
  }, 60_000);
});
