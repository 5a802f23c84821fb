import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeWorkflowBundle } from '../../worker/src/workflow-bundle';
import { eventually } from '../../../test/eventually';
import { startTestApi, type TestApi } from '../../../test/test-api';
import { integrationEnv } from '../../../test/test-env';
import { openScratchDatabase, type ScratchDatabase } from '../../../test/scratch-database';
import { throwawayTemporal, type ThrowawayTemporal } from '../../../test/throwaway-services';
import { exited, startWorkerProcess } from '../../../test/worker-process';

const ADMIN = `effects-outage-${randomUUID()}-${randomUUID()}`;
// this file's own Temporal dev server (never the shared one on 7233, nor journey-start-outage's 7381)
const TEMPORAL_PORT = 7383;
const OUTAGE_MS = 30_000;
const USERS = 6;
const CONNECT_TIMEOUT = '60 seconds';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Signals and exits outlive a Temporal outage (docs/operations.md, "What to expect of an outage"):
 * runs of re-engagement wait for `session.started`; Temporal is killed for 30 s while half of the
 * users send that event and the other half `user.deleted` (its exit rule). Every event is accepted
 * at once, its signal or exit kept in the outbox with it; once Temporal is back every waiting run
 * has resumed once and every exited run is cancelled, none twice.
 */
describe('signals and exits across a Temporal outage', () => {
  let temporal: ThrowawayTemporal;
  let api: TestApi;
  let worker: ChildProcess | undefined;
  const bundleDir = mkdtempSync(path.join(tmpdir(), 'waymark-effects-outage-'));

  // a database of this file's own: its workers' relays would otherwise carry out (against this
  // file's Temporal) the kept effects of another file's outage running at the same time, and that
  // file's relays this one's
  let scratch: ScratchDatabase | undefined;

  beforeAll(async () => {
    scratch = await openScratchDatabase();
    temporal = throwawayTemporal(TEMPORAL_PORT);
    const bundle = path.join(bundleDir, 'workflow-bundle.js');
    await Promise.all([temporal.start(), writeWorkflowBundle(bundle)]);
    const env = {
      ...integrationEnv(),
      DATABASE_URL: scratch.url,
      ADMIN_API_KEY: ADMIN,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: `effects-outage-${randomUUID().slice(0, 8)}`,
      TEMPORAL_WORKFLOW_BUNDLE: bundle,
    };
    // a worker process as deployed (apps/worker/src/main.ts), with its relay
    worker = startWorkerProcess(env);
    api = await startTestApi(env);
    const connection = await Connection.connect({ address: temporal.address, connectTimeout: CONNECT_TIMEOUT });
    try {
      await eventually(
        async () =>
          (await connection.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name: env.TEMPORAL_TASK_QUEUE }, taskQueueType: 1 })).pollers
            .length,
        (pollers) => pollers >= 1,
        { timeoutMs: 120_000, intervalMs: 500, what: 'the worker polling' },
      );
    } finally {
      await connection.close();
    }
  }, 180_000);

  afterAll(async () => {
    try {
      await api?.close();
      if (worker !== undefined) {
        worker.kill('SIGTERM');
        await Promise.race([exited(worker), sleep(20_000).then(() => worker!.kill('SIGKILL'))]);
      }
    } finally {
      await temporal?.destroy();
      await scratch?.release();
      rmSync(bundleDir, { recursive: true, force: true });
    }
  }, 60_000);

  const post = (body: object, key?: string) =>
    api.request('POST', '/v1/events', { token: ADMIN, body, ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }) });
  const perUser = (query: (users: string[]) => ReturnType<typeof sql<{ userId: string; n: number }>>, users: string[]) =>
    query(users)
      .execute(api.deps.db)
      .then((result) => Object.fromEntries(result.rows.map((row) => [row.userId, row.n])));

  it('every waiting run resumes once and every exited run is cancelled once after a 30 s outage', async () => {
    const prefix = `effects-${randomUUID().slice(0, 8)}`;
    const users = Array.from({ length: USERS }, (_, i) => `${prefix}-${i}`);
    for (const userId of users) {
      expect((await post({ name: 'user.inactive', userId, email: `${userId}@example.com`, eventProperties: { daysInactive: 20 } })).status).toBe(202);
    }
    const waiting = await eventually(
      () =>
        api.deps.db
          .selectFrom('journeyStates')
          .select(['id', 'userId', 'workflowId'])
          .where('journeyId', '=', 're-engagement')
          .where('userId', 'in', users)
          .where('status', '=', 'waiting')
          .where(sql<string>`context ->> 'waitingFor'`, '=', 'session.started')
          .execute(),
      (rows) => rows.length === USERS,
      { timeoutMs: 120_000, what: 'every run waiting for session.started' },
    );
    // and Temporal has the wait (its timeout's timer) on disk: the mirror write above is a local
    // activity, recorded with the workflow task that a kill just after it could still lose
    for (const row of waiting) {
      const handle = api.deps.temporal.client.workflow.getHandle(row.workflowId);
      await eventually(
        async () => ((await handle.fetchHistory()).events ?? []).some((event) => event.timerStartedEventAttributes != null),
        (timer) => timer,
        { timeoutMs: 60_000, what: `the wait of ${row.userId} in Temporal's history` },
      );
    }
    const resuming = users.filter((_, i) => i % 2 === 0);
    const exiting = users.filter((_, i) => i % 2 === 1);

    await temporal.kill();
    const retryKey = `retry-${randomUUID()}`;
    for (const userId of resuming) {
      const key = userId === resuming[0] ? retryKey : undefined;
      expect((await post({ name: 'session.started', userId }, key)).status).toBe(202);
    }
    for (const userId of exiting) {
      const response = await post({ name: 'user.deleted', userId });
      expect(response.status).toBe(202);
      // the exit applies at once, Temporal or not: the state is exited in the event's own statement
      expect(response.body.exits).toEqual([{ journeyId: 're-engagement', stateId: waiting.find((row) => row.userId === userId)!.id, exited: true }]);
    }
    // a producer's retry of a signal during the outage: stored once, its signal still kept
    const again = await post({ name: 'session.started', userId: resuming[0] }, retryKey);
    expect(again.status).toBe(202);
    expect(again.body.stored).toBe(false);
    const kept = await api.deps.db.selectFrom('eventEffects').select(['userId', 'kind']).where('userId', 'in', users).execute();
    expect(kept.map((row) => `${row.userId}:${row.kind}`).sort()).toEqual([...resuming.map((u) => `${u}:signal`), ...exiting.map((u) => `${u}:exit`)].sort());

    await sleep(OUTAGE_MS);
    await temporal.start();

    // every kept effect carried out, by the api's next attempt or the worker's relay
    await eventually(
      () => api.deps.db.selectFrom('eventEffects').select(['userId', 'kind', 'lastError']).where('userId', 'in', users).execute(),
      (rows) => rows.length === 0,
      { timeoutMs: 180_000, intervalMs: 500, what: 'the relay to carry out every kept signal and exit' },
    );
    // resumed: each waiting run got its event once and went on to its welcome-back step (held
    // there by the journey's 48 h suppress window: the email itself is not what this test is about)
    const resumedLogs = await eventually(
      () =>
        perUser(
          (list) => sql`select s.user_id as "userId", count(*)::int as n from journey_logs l join journey_states s on s.id = l.journey_state_id
            where s.user_id = any(${list}::text[]) and s.journey_id = 're-engagement' and l.action = 'resumed' group by s.user_id`,
          users,
        ),
      (counts) => resuming.every((userId) => counts[userId] !== undefined),
      { timeoutMs: 120_000, what: 'every waiting run resumed' },
    );
    expect(resumedLogs).toEqual(Object.fromEntries(resuming.map((userId) => [userId, 1])));
    await eventually(
      () => api.deps.db.selectFrom('journeyStates').select(['userId', 'currentNodeId']).where('userId', 'in', resuming).execute(),
      (rows) => rows.every((row) => row.currentNodeId === 'reengage-welcome-back'),
      { what: 'every resumed run at its welcome-back step' },
    );

    // exited: each run cancelled in Temporal, logged as exited once, nothing sent after
    for (const userId of exiting) {
      const handle = api.deps.temporal.client.workflow.getHandle(waiting.find((row) => row.userId === userId)!.workflowId);
      const closed = await eventually(
        () => handle.describe(),
        (description) => description.status.name !== 'RUNNING',
        { timeoutMs: 60_000, what: `the run of ${userId} cancelled` },
      );
      expect(closed.status.name).toBe('CANCELLED');
    }
    const exitLogs = await perUser(
      (list) => sql`select s.user_id as "userId", count(*)::int as n from journey_logs l join journey_states s on s.id = l.journey_state_id
        where s.user_id = any(${list}::text[]) and s.journey_id = 're-engagement' and l.action = 'exited' group by s.user_id`,
      users,
    );
    expect(exitLogs).toEqual(Object.fromEntries(exiting.map((userId) => [userId, 1])));
    const states = await api.deps.db.selectFrom('journeyStates').select(['userId', 'status']).where('userId', 'in', users).execute();
    expect(Object.fromEntries(states.map((row) => [row.userId, row.status]))).toEqual(
      Object.fromEntries(users.map((userId) => [userId, resuming.includes(userId) ? 'waiting' : 'exited'])),
    );
    const afterWait = await api.deps.db
      .selectFrom('emailSends')
      .select(['userId', 'templateKey'])
      .where('userId', 'in', users)
      .where('templateKey', '!=', 'reengage-we-miss-you')
      .execute();
    expect(afterWait.filter((send) => send.userId !== null && exiting.includes(send.userId))).toEqual([]);
    const parked = await api.deps.db
      .selectFrom('dlqEntries')
      .select('id')
      .where(sql<string>`payload -> 'request' ->> 'userId'`, 'in', users)
      .execute();
    expect(parked).toEqual([]);
  }, 600_000);

  it('an exit event stored before its run entered exits the run at its entry: nothing of the journey is sent', async () => {
    const prefix = `early-exit-${randomUUID().slice(0, 8)}`;
    const users = Array.from({ length: 3 }, (_, i) => `${prefix}-${i}`);
    await temporal.kill();
    // the trial's start can only wait in the outbox; the subscription finds no live state to exit
    for (const userId of users) {
      const email = `${userId}@example.com`;
      expect((await post({ name: 'trial.started', userId, email, eventProperties: { plan: 'pro' } })).status).toBe(202);
      const subscribed = await post({ name: 'subscription.started', userId, email, eventProperties: { plan: 'pro' } });
      expect(subscribed.status).toBe(202);
      expect(subscribed.body.exits).toEqual([]);
    }
    const kept = await api.deps.db.selectFrom('eventEffects').select(['userId', 'kind']).where('userId', 'in', users).execute();
    expect(kept.map((row) => `${row.userId}:${row.kind}`).sort()).toEqual(users.map((userId) => `${userId}:start`).sort());
    await sleep(5_000);
    await temporal.start();

    // each run started once its start left the outbox, entered, and was exited there by the subscription
    const states = await eventually(
      () =>
        api.deps.db
          .selectFrom('journeyStates')
          .select(['id', 'userId', 'status', 'workflowId'])
          .where('journeyId', '=', 'trial-conversion')
          .where('userId', 'in', users)
          .execute(),
      (rows) => rows.length === users.length && rows.every((row) => row.status === 'exited'),
      { timeoutMs: 180_000, intervalMs: 500, what: 'every trial run entered and exited' },
    );
    for (const state of states) {
      const handle = api.deps.temporal.client.workflow.getHandle(state.workflowId);
      const closed = await eventually(
        () => handle.describe(),
        (description) => description.status.name !== 'RUNNING',
        { timeoutMs: 60_000, what: `the run of ${state.userId} ended` },
      );
      expect(closed.status.name).toBe('COMPLETED');
    }
    const subscriptions = Object.fromEntries(
      (await api.deps.db.selectFrom('events').select(['userId', 'id']).where('userId', 'in', users).where('event', '=', 'subscription.started').execute()).map(
        (row) => [row.userId, row.id],
      ),
    );
    const logs = await api.deps.db
      .selectFrom('journeyLogs')
      .innerJoin('journeyStates', 'journeyStates.id', 'journeyLogs.journeyStateId')
      .select(['journeyStates.userId', 'journeyLogs.action', 'journeyLogs.detail'])
      .where('journeyStates.userId', 'in', users)
      .where('journeyLogs.action', '=', 'exited')
      .execute();
    expect(logs.map((row) => ({ userId: row.userId, detail: row.detail })).sort((a, b) => a.userId.localeCompare(b.userId))).toEqual(
      users.map((userId) => ({ userId, detail: { reason: 'exit_rule', event: 'subscription.started', eventId: subscriptions[userId] } })),
    );
    // not even the welcome: the person had paid before the run could send anything
    const sent = await api.deps.db.selectFrom('emailSends').select(['userId', 'templateKey']).where('userId', 'in', users).execute();
    expect(sent).toEqual([]);
  }, 600_000);
  it('a waited-for event stored while the start of its run waited in the outbox resumes the run when it reaches the wait', async () => {
    const userId = `late-start-${randomUUID().slice(0, 8)}`;
    await temporal.kill();
    // the trigger is stored, its start kept; the event its wait is for arrives before the run exists
    expect((await post({ name: 'user.inactive', userId, email: `${userId}@example.com`, eventProperties: { daysInactive: 20 } })).status).toBe(202);
    expect((await post({ name: 'session.started', userId })).status).toBe(202);
    const session = await api.deps.db
      .selectFrom('events')
      .select('id')
      .where('userId', '=', userId)
      .where('event', '=', 'session.started')
      .executeTakeFirstOrThrow();
    await temporal.start();

    // started by the relay, the run sends its first email, reaches the wait and finds the event there
    const resumed = await eventually(
      () =>
        api.deps.db
          .selectFrom('journeyLogs')
          .innerJoin('journeyStates', 'journeyStates.id', 'journeyLogs.journeyStateId')
          .select(['journeyLogs.action', 'journeyLogs.detail', 'journeyStates.currentNodeId'])
          .where('journeyStates.userId', '=', userId)
          .where('journeyLogs.action', 'in', ['resumed', 'wait_timeout'])
          .execute(),
      (rows) => rows.length > 0,
      { timeoutMs: 180_000, intervalMs: 500, what: 'the run to leave its wait' },
    );
    expect(resumed.map((row) => ({ action: row.action, detail: row.detail }))).toEqual([
      { action: 'resumed', detail: { event: 'session.started', eventId: session.id } },
    ]);
    await eventually(
      () => api.deps.db.selectFrom('journeyStates').select('currentNodeId').where('userId', '=', userId).executeTakeFirstOrThrow(),
      (row) => row.currentNodeId === 'reengage-welcome-back',
      { timeoutMs: 60_000, what: 'the run at its welcome-back step' },
    );
  }, 600_000);
});
