import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailsTo, uniqueAddress } from '../../test/email-emulator';
import { eventually } from '../../test/eventually';
import { withScratchDatabase } from '../../test/scratch-database';
import { startTestApi, type TestApi } from '../../test/test-api';
import { integrationEnv } from '../../test/test-env';
import { releaseTaskQueue } from '../../test/task-queue-cleanup';
import { exited, startWorkerProcess } from '../../test/worker-process';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

/**
 * Resolves when the worker logs that it polls its queue. Bundling the workflow code takes seconds
 * on an idle machine and much longer on a busy one; the recovery time is counted from here.
 */
function polling(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      if (seen === 'done') return;
      seen += chunk.toString();
      if (seen.includes('Waymark worker polling task queue')) {
        seen = 'done';
        resolve(Date.now());
      }
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${String(code)}) before polling`)));
  });
}

/**
 * The worker is killed while it is inside the send activity: a test transaction holds a SHARE
 * lock on email_sends (in a scratch database of this file's own, so no other test waits on it),
 * the activity's INSERT of the send row queues behind it, and the kill lands there. Temporal only
 * learns that the attempt is gone when its start-to-close timeout passes, so this measures that
 * timeout plus the retry backoff.
 */
describe('a journey email survives a worker killed mid-send', () => {
  const queue = `send-kill-${randomUUID()}`;
  const workers: ChildProcess[] = [];
  let api: TestApi | undefined;
  let finish: (() => void) | undefined;
  let done: Promise<void> | undefined;
  let databaseUrl = '';

  beforeAll(async () => {
    // the scratch database lives as long as the file's tests: finish() lets withScratchDatabase drop it
    databaseUrl = await new Promise<string>((resolveUrl, reject) => {
      done = withScratchDatabase(
        (url) =>
          new Promise<void>((release) => {
            finish = release;
            resolveUrl(url);
          }),
      ).catch(reject);
    });
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, TEMPORAL_TASK_QUEUE: queue, DATABASE_URL: databaseUrl });
  }, 60_000);

  afterAll(async () => {
    for (const worker of workers) {
      worker.kill('SIGTERM');
      await exited(worker);
    }
    if (api !== undefined) {
      await releaseTaskQueue(api.deps.temporal.client, queue);
      await api.close();
    }
    finish?.();
    await done;
  }, 60_000);

  it('SIGKILL while the send is in flight: the email goes out once, within 45 s of the restart', async () => {
    // info: the test waits on the worker's polling log line
    const env = { ...integrationEnv(), DATABASE_URL: databaseUrl, TEMPORAL_TASK_QUEUE: queue, LOG_LEVEL: 'info' };
    const first = startWorkerProcess(env, 'pipe');
    workers.push(first);

    const blocker = new pg.Client({ connectionString: databaseUrl });
    const watcher = new pg.Client({ connectionString: databaseUrl });
    await blocker.connect();
    await watcher.connect();
    try {
      await blocker.query('begin');
      await blocker.query('lock table email_sends in share mode');

      const email = uniqueAddress('kill');
      const userId = `kill-${randomUUID().slice(0, 8)}`;
      const accepted = await api!.request('POST', '/v1/events', {
        token: LEGACY,
        body: { name: 'user.signed_up', userId, email, eventProperties: { firstName: 'Kim' } },
      });
      expect(accepted.status).toBe(202);

      // the worker's connection is waiting for the lock: it is inside sendJourneyEmail. Asked on
      // another connection: pg_stat_activity is a snapshot fixed for the blocker's transaction.
      await eventually(
        async () => {
          const waiting = await watcher.query<{ n: number }>(
            `select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
              where not l.granted and l.relation = 'email_sends'::regclass and a.application_name = 'waymark-worker'`,
          );
          return waiting.rows[0]!.n;
        },
        (n) => n > 0,
        { timeoutMs: 180_000, intervalMs: 100, what: 'the send activity to reach its INSERT' },
      );
      first.kill('SIGKILL');
      await exited(first);
      const killedAt = Date.now();
      await blocker.query('rollback');

      const second = startWorkerProcess(env, 'pipe');
      workers.push(second);
      const restartedAt = await polling(second);
      const delivered = await eventually(
        () => emailsTo(email),
        (list) => list.length > 0,
        { timeoutMs: 120_000, intervalMs: 250, what: 'the welcome email at the SES emulator' },
      );
      const seconds = (Date.now() - restartedAt) / 1000;
      console.info(`send completed ${seconds.toFixed(1)} s after the restarted worker polled, ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill`);
      expect(seconds).toBeLessThanOrEqual(45);
      expect(delivered).toHaveLength(1);

      // the send row and the journey log are written just after SES accepts the message
      const sends = await eventually(
        () => api!.deps.db.selectFrom('emailSends').select(['status', 'templateKey']).where('toEmail', '=', email).execute(),
        (rows) => rows.some((row) => row.status === 'sent'),
        { what: 'the send row to read sent' },
      );
      expect(sends).toEqual([{ status: 'sent', templateKey: 'welcome' }]);
      const logs = await eventually(
        () =>
          api!.deps.db
            .selectFrom('journeyLogs')
            .innerJoin('journeyStates', 'journeyStates.id', 'journeyLogs.journeyStateId')
            .select('journeyLogs.action')
            .where('journeyStates.userId', '=', userId)
            .where('journeyLogs.action', '=', 'email_sent')
            .execute(),
        (rows) => rows.length > 0,
        { what: 'the email_sent journey log' },
      );
      expect(logs).toHaveLength(1);
      // still once a few seconds later: the orphaned attempt did not send as well
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(await emailsTo(email)).toHaveLength(1);
    } finally {
      await blocker.end();
      await watcher.end();
    }
  }, 420_000);
});
