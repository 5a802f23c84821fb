import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { dataConverterFor } from '@waymark/temporal/payload-codec';
import { NativeConnection, Worker } from '@temporalio/worker';
import { Context } from '@temporalio/activity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { createEmailDeps } from '@waymark/core/emails/create-email-deps';
import type { SendJourneyEmailInput } from '@waymark/core/journeys/journey-email';
import { emailTemplates } from '@waymark/journeys/templates/registry';
import { emailsTo, uniqueAddress } from '../../test/email-emulator';
import { integrationEnv } from '../../test/test-env';
import { createSendJourneyEmailActivities } from './send-journey-email';
import { deploymentCategories } from '../../test/deployment-categories';

const workflowsPath = path.join(path.dirname(fileURLToPath(import.meta.url)), '../test/send-journey-email-workflow.ts');

/**
 * The real activity on the real Temporal dev server, PostgreSQL and the SES emulator. Faults are
 * injected by wrapping the real activity, so the retry comes from Temporal itself.
 */
describe('sendJourneyEmail activity under Temporal retries', () => {
  const config = loadConfig(integrationEnv());
  let db: Db;
  let connection: NativeConnection;
  let clientConnection: Connection;
  let client: Client;

  beforeAll(async () => {
    db = createDatabase({ connectionString: config.databaseUrl, max: 4 });
    connection = await NativeConnection.connect({ address: config.temporal.address });
    clientConnection = await Connection.connect({ address: config.temporal.address });
    client = new Client({ connection: clientConnection, namespace: config.temporal.namespace, ...dataConverterFor(config.encryptionKeys) });
  });
  afterAll(async () => {
    await connection?.close();
    await clientConnection?.close();
    await db?.destroy();
  });

  async function journeyState(to: string) {
    return db
      .insertInto('journeyStates')
      .values({ journeyId: 'activity-test', userId: `u-${randomUUID()}`, userEmail: to, workflowId: `wf-${randomUUID()}`, context: '{}' })
      .returning(['id', 'userId'])
      .executeTakeFirstOrThrow();
  }

  async function run(activity: (input: SendJourneyEmailInput) => Promise<unknown>, ...inputs: SendJourneyEmailInput[]): Promise<unknown[]> {
    const taskQueue = `send-email-test-${randomUUID()}`;
    const worker = await Worker.create({
      connection,
      namespace: config.temporal.namespace,
      taskQueue,
      workflowsPath,
      ...dataConverterFor(config.encryptionKeys),
      activities: { sendJourneyEmail: activity },
    });
    return worker.runUntil(client.workflow.execute('sendJourneyEmailWorkflow', { taskQueue, workflowId: `send-email-test-${randomUUID()}`, args: [inputs] }));
  }

  it('sends exactly one email when the activity fails after the provider call and Temporal retries it', async () => {
    const to = uniqueAddress('activity');
    const state = await journeyState(to);
    const real = createSendJourneyEmailActivities({
      email: createEmailDeps(config, { db, templates: emailTemplates, categories: deploymentCategories }),
    }).sendJourneyEmail;
    const attempts: number[] = [];
    const failingAfterSend = async (input: SendJourneyEmailInput) => {
      const result = await real(input);
      attempts.push(Context.current().info.attempt);
      if (Context.current().info.attempt === 1) throw new Error('worker crashed after the provider call');
      return result;
    };
    const input: SendJourneyEmailInput = {
      stateId: state.id,
      journeyId: 'activity-test',
      userId: state.userId,
      userEmail: to,
      templateKey: 'welcome',
      nodeId: 'welcome',
      data: { firstName: 'Ada' },
      category: 'journey',
      idempotencyKey: `wf:${randomUUID()}:welcome:1`,
    };
    const [result] = await run(failingAfterSend, input);
    expect(attempts).toEqual([1, 2]);
    expect(result).toMatchObject({ status: 'sent' });
    expect(await emailsTo(to)).toHaveLength(1);
    const logs = await db.selectFrom('journeyLogs').select(['action']).where('journeyStateId', '=', state.id).execute();
    expect(logs.filter((log) => log.action === 'email_sent')).toHaveLength(1);
  });

  it('waits durably through the suppress.hours window (state waiting), then sends', async () => {
    const to = uniqueAddress('window');
    const state = await journeyState(to);
    const real = createSendJourneyEmailActivities({
      email: createEmailDeps(config, { db, templates: emailTemplates, categories: deploymentCategories }),
    }).sendJourneyEmail;
    const base = { stateId: state.id, journeyId: 'activity-test', userId: state.userId, userEmail: to, data: {}, category: 'journey', suppressHours: 3 / 3600 };
    const results = await run(
      real,
      { ...base, templateKey: 'welcome', nodeId: 'welcome', idempotencyKey: `k-${randomUUID()}` },
      { ...base, templateKey: 'welcome-tips', nodeId: 'tips', idempotencyKey: `k-${randomUUID()}` },
    );
    expect(results).toMatchObject([{ status: 'sent' }, { status: 'sent' }]);
    const logs = await db.selectFrom('journeyLogs').select(['action', 'detail']).where('journeyStateId', '=', state.id).orderBy('createdAt').execute();
    expect(logs.map((log) => log.action)).toEqual(['email_sent', 'waiting', 'email_sent']);
    expect(logs[1]?.detail).toMatchObject({ reason: 'suppress_window' });
    const sends = await db.selectFrom('emailSends').select('sentAt').where('journeyStateId', '=', state.id).orderBy('sentAt').execute();
    expect(sends[1]!.sentAt!.getTime() - sends[0]!.sentAt!.getTime()).toBeGreaterThanOrEqual(3_000);
    expect(await emailsTo(to)).toHaveLength(2);
  });
});
