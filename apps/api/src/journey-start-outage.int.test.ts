import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { sql, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { writeWorkflowBundle } from '../../worker/src/workflow-bundle';
import { eventually } from '../../../test/eventually';
import { startTestApi, type TestApi } from '../../../test/test-api';
import { integrationEnv } from '../../../test/test-env';
import { openScratchDatabase, type ScratchDatabase } from '../../../test/scratch-database';
import { throwawayTemporal, type ThrowawayTemporal } from '../../../test/throwaway-services';
import { exited, startWorkerProcess } from '../../../test/worker-process';

const ADMIN = `outage-${randomUUID()}-${randomUUID()}`;
// this file's own Temporal dev server (never the shared one on 7233, which other tests use)
const TEMPORAL_PORT = 7381;
const OUTAGE_MS = 30_000;
/** the client's default (10 s) has run out on a busy box, with the server up and serving the workers */
const CONNECT_TIMEOUT = '60 seconds';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Journey starts outlive a Temporal outage (docs/operations.md, "Temporal outage"): the server is
 * killed for 30 s while sign-ups keep arriving; every acknowledged sign-up's journey is started
 * once it is back (by the api that stored it, or by the worker's relay from event_effects),
 * none twice, and none is left in the DLQ.
 */
describe('journey starts across a Temporal outage', () => {
  let temporal: ThrowawayTemporal;
  let api: TestApi;
  let db: Db;
  const workers: ChildProcess[] = [];
  const bundleDir = mkdtempSync(path.join(tmpdir(), 'waymark-outage-'));

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
      TEMPORAL_TASK_QUEUE: `outage-${randomUUID().slice(0, 8)}`,
      TEMPORAL_WORKFLOW_BUNDLE: bundle,
    };
    db = createDatabase({ connectionString: env.DATABASE_URL, max: 2 });
    // two worker processes as deployed (apps/worker/src/main.ts): two relays share the pending starts
    workers.push(startWorkerProcess(env), startWorkerProcess(env));
    api = await startTestApi(env);
    const connection = await Connection.connect({ address: temporal.address, connectTimeout: CONNECT_TIMEOUT });
    try {
      await eventually(
        async () =>
          (await connection.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name: env.TEMPORAL_TASK_QUEUE }, taskQueueType: 1 })).pollers
            .length,
        (pollers) => pollers >= 2,
        { timeoutMs: 120_000, intervalMs: 500, what: 'both workers polling' },
      );
    } finally {
      await connection.close();
    }
  }, 180_000);

  afterAll(async () => {
    try {
      await api?.close();
      // a worker stuck in its shutdown must not keep the server below alive past this file
      const stopped = (child: ChildProcess) =>
        Promise.race([
          exited(child),
          sleep(20_000).then(() => {
            child.kill('SIGKILL');
            return exited(child);
          }),
        ]);
      for (const child of workers) child.kill('SIGTERM');
      await Promise.all(workers.map(stopped));
      await db?.destroy();
    } finally {
      await temporal?.destroy();
      await scratch?.release();
      rmSync(bundleDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('starts every acknowledged sign-up once after a 30 s outage, none twice, none in the DLQ', async () => {
    const prefix = `outage-${randomUUID().slice(0, 8)}`;
    const acked: string[] = [];
    const refused: number[] = [];
    let n = 0;
    let load = true;
    const inflight = new Set<Promise<void>>();
    const send = async () => {
      const userId = `${prefix}-${n++}`;
      const response = await api.request('POST', '/v1/events', {
        token: ADMIN,
        body: { name: 'user.signed_up', userId, email: `${userId}@waymark-test.example` },
      });
      if (response.status === 202) acked.push(userId);
      else refused.push(response.status);
    };
    const loop = (async () => {
      while (load) {
        const request = send();
        inflight.add(request);
        void request.finally(() => inflight.delete(request));
        await sleep(250);
      }
      await Promise.all(inflight);
    })();

    await sleep(3_000);
    await temporal.kill();
    await sleep(OUTAGE_MS);
    // the starts the outage interrupted are kept, not parked (asserted once the load has stopped)
    const kept = await db.selectFrom('eventEffects').select(['userId']).where('kind', '=', 'start').where('userId', 'like', `${prefix}-%`).execute();
    const ackedDuringOutage = acked.length;
    await temporal.start();
    await sleep(3_000);
    load = false;
    await loop;
    console.info(
      `Temporal down ${OUTAGE_MS / 1000} s: ${kept.length} starts kept pending; ${ackedDuringOutage} sign-ups acknowledged by then, ${acked.length} in all`,
    );
    expect(kept.length).toBeGreaterThan(0);
    expect(refused).toEqual([]);
    // the workers rode out the outage (a worker that died would leave the relay to the other)
    expect(workers.map((child) => child.exitCode)).toEqual([null, null]);

    // every acknowledged sign-up has its run: the relay has emptied the table
    await eventually(
      () => db.selectFrom('eventEffects').select(['userId']).where('kind', '=', 'start').where('userId', 'like', `${prefix}-%`).execute(),
      (rows) => rows.length === 0,
      { timeoutMs: 120_000, what: 'the relay to start every pending journey start' },
    );
    // rows per sign-up of this test, once there is one for each acknowledged sign-up
    const perUser = (what: string, rows: (pattern: string) => RawBuilder<{ userId: string; n: number }>) =>
      eventually(
        async () => (await rows(`${prefix}-%`).execute(db)).rows,
        (found) => found.length === acked.length,
        { timeoutMs: 120_000, what },
      );
    const states = await perUser(
      'a welcome-series state for every acknowledged sign-up',
      (pattern) => sql`select user_id as "userId", count(*)::int as n from journey_states
        where journey_id = 'welcome-series' and user_id like ${pattern} group by user_id`,
    );
    expect(states.map((row) => row.userId).sort()).toEqual([...acked].sort());
    expect(states.filter((row) => row.n !== 1)).toEqual([]);

    // None twice: one state and one welcome email per sign-up, as the chaos run counts them. A
    // second run could only come under a second workflow id, and the id is one per (journey, user,
    // event), which the relay starts again as it was. Temporal itself is not asked: its dev server
    // restarted on its SQLite file answers inconsistently about runs started just after the
    // restart (temporalio/cli#632): runs that ran (each has its state here) were missing
    // from the visibility list after two minutes, and one was "not found" by its id.
    const welcomes = await perUser(
      'a welcome email for every acknowledged sign-up',
      (pattern) => sql`select user_id as "userId", count(*)::int as n from email_sends
        where template_key = 'welcome' and user_id like ${pattern} group by user_id`,
    );
    expect(welcomes.filter((row) => row.n !== 1)).toEqual([]);
    const parked = await db
      .selectFrom('dlqEntries')
      .select('id')
      .where(sql<string>`payload -> 'request' ->> 'userId'`, 'like', `${prefix}-%`)
      .execute();
    expect(parked).toEqual([]);
  }, 400_000);
});
