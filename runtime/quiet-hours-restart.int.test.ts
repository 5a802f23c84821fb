import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { dataConverterFor } from '@waymark/temporal/payload-codec';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { createEmailDeps } from '@waymark/core/emails/create-email-deps';
import { createLogger } from '@waymark/core/logging/logger';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { emailsTo, uniqueAddress } from '../test/email-emulator';
import { eventually } from '../test/eventually';
import { releaseTaskQueue } from '../test/task-queue-cleanup';
import { integrationEnv } from '../test/test-env';
import { createJourneyActivities } from '@waymark/temporal/activities/journey';
import { createSendJourneyEmailActivities } from '@waymark/temporal/activities/send-journey-email';
import { createTemporalOrchestrator } from '@waymark/temporal/journey-orchestrator';
import { createRuntime, deploymentJourneyVersions } from './runtime';
import { deploymentCategories } from '../test/deployment-categories';

const workflowsPath = path.join(path.dirname(fileURLToPath(import.meta.url)), '../temporal/test/quiet-hours-journey-workflow.ts');
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

/**
 * A send held by quiet hours is a durable timer: the worker stops during the hold, the hold ends
 * while no worker runs, and a new worker sends the email once. Real PostgreSQL, the Temporal dev
 * server (only this file's task queue; the server itself is never stopped) and the SES emulator;
 * the window is the current minute or two of UTC, so the hold lasts 25–85 s of real time.
 */
describe('a quiet-hours hold survives a worker restart', () => {
  const config = loadConfig({ ...integrationEnv(), TEMPORAL_TASK_QUEUE: `quiet-hours-${randomUUID()}` });
  const taskQueue = config.temporal.taskQueue;
  let db: Db;
  let connection: NativeConnection;
  let clientConnection: Connection;
  let client: Client;
  let code: string;

  beforeAll(async () => {
    db = createDatabase({ connectionString: config.databaseUrl, max: 4 });
    connection = await NativeConnection.connect({ address: config.temporal.address });
    clientConnection = await Connection.connect({ address: config.temporal.address });
    client = new Client({ connection: clientConnection, namespace: config.temporal.namespace, ...dataConverterFor(config.encryptionKeys) });
    // bundled once for both workers
    ({ code } = await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') }));
  }, 120_000);
  afterAll(async () => {
    if (client !== undefined) await releaseTaskQueue(client, taskQueue);
    await connection?.close();
    await clientConnection?.close();
    await db?.destroy();
  });

  /** A worker as the worker app builds its journey activities (real database, ingest and send path). */
  function startWorker(): Promise<Worker> {
    const logger = createLogger({ level: 'error', name: 'quiet-hours-worker', format: 'json' });
    const orchestrator = createTemporalOrchestrator(client, taskQueue, deploymentJourneyVersions());
    const runtime = createRuntime(config, { db, logger, orchestrator });
    return Worker.create({
      connection,
      namespace: config.temporal.namespace,
      taskQueue,
      workflowBundle: { code },
      ...dataConverterFor(config.encryptionKeys),
      activities: {
        ...createJourneyActivities({
          db,
          categories: deploymentCategories,
          journeys: runtime.journeys,
          ingest: runtime.ingest,
          config,
          deliveryPolicy: runtime.deliveryPolicy,
        }),
        ...createSendJourneyEmailActivities({ email: createEmailDeps(config, { db, templates: emailTemplates, categories: deploymentCategories }) }),
      },
    });
  }

  it('holds the send, stops the worker, and a new worker sends it once after the window', async () => {
    const now = Date.now();
    // the window ends at the next minute boundary at least 25 s away
    const end = Math.ceil((now + 25_000) / 60_000) * 60_000;
    const quietHours = { from: hhmm(now - 60_000), to: hhmm(end) } as const;
    const userId = `quiet-${randomUUID()}`;
    const userEmail = uniqueAddress('quiet');
    const journeyId = 'quiet-hours-test';
    const workflowId = `quiet-hours-test:${userId}`;
    const request = {
      journeyId,
      userId,
      userEmail,
      properties: {},
      trigger: { event: 'user.signed_up', eventId: randomUUID(), occurredAt: new Date(now).toISOString() },
    };
    // one snapshot: read apart, the state could predate a step whose log the second read sees
    const logsOf = () =>
      db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => {
          const state = await trx.selectFrom('journeyStates').select(['id', 'status']).where('workflowId', '=', workflowId).executeTakeFirst();
          if (state === undefined) return { status: undefined, actions: [] as string[], held: undefined };
          const logs = await trx.selectFrom('journeyLogs').selectAll().where('journeyStateId', '=', state.id).orderBy('createdAt').orderBy('id').execute();
          return { status: state.status, actions: logs.map((log) => log.action), held: logs.find((log) => log.action === 'held')?.detail };
        });

    const first = await startWorker();
    const firstRun = first.run();
    let handle;
    try {
      handle = await client.workflow.start('quietHoursJourneyWorkflow', { taskQueue, workflowId, args: [{ request, quietHours }] });
      const held = await eventually(logsOf, (logs) => logs.held !== undefined, { what: 'the quiet-hours hold' });
      expect(held.status).toBe('waiting');
      expect(held.held).toMatchObject({ reason: 'quiet_hours', templateKey: 'welcome', until: new Date(end).toISOString(), timeZone: 'UTC' });
    } finally {
      // stopped in process; the Temporal server keeps running
      first.shutdown();
      await firstRun;
    }
    expect(await emailsTo(userEmail)).toEqual([]);

    // the hold ends with no worker running: the timer is Temporal's, not the worker's
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, end - Date.now()) + 1_000));
    expect((await logsOf()).actions).not.toContain('email_sent');

    const second = await startWorker();
    const outcome = await second.runUntil(handle.result());
    expect(outcome).toMatchObject({ outcome: 'completed' });
    const after = await logsOf();
    expect(after.actions).toEqual(['entered', 'held', 'resumed', 'email_sent', 'completed']);
    const sends = await db.selectFrom('emailSends').select(['templateKey', 'sentAt']).where('toEmail', '=', userEmail).execute();
    expect(sends.map((send) => send.templateKey)).toEqual(['welcome']);
    expect(sends[0]!.sentAt!.getTime()).toBeGreaterThanOrEqual(end);
    expect((await emailsTo(userEmail)).length).toBe(1);
  }, 180_000);
});
