import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { createDatabase, type Db } from '@waymark/core/db/database';
import trialConversion from '@waymark/journeys/trial-conversion';
import { runSimulation } from '../../../../cli/src/simulate';
import { expectedSimulationMonth, seedSimulationMonth } from '../../../../../test/fixtures/simulation-month';
import { openScratchDatabase, type ScratchDatabase } from '../../../../../test/scratch-database';
import { issueApiKey, startTestApi, type TestApi } from '../../../../../test/test-api';
import { integrationEnv } from '../../../../../test/test-env';
import { exited, startWorkerProcess } from '../../../../../test/worker-process';
import { releaseTaskQueue } from '../../../../../test/task-queue-cleanup';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;

describe('journey simulation jobs (full-admin)', () => {
  // a database of its own: the report counts every trial.started of the window, and other test
  // files store such events in the shared test database meanwhile
  const settings = { DATABASE_URL: '', TEMPORAL_TASK_QUEUE: `simulations-${randomUUID()}` };
  let api: TestApi;
  let db: Db;
  let worker: ChildProcess | undefined;
  let scratch: ScratchDatabase | undefined;

  beforeAll(async () => {
    scratch = await openScratchDatabase();
    settings.DATABASE_URL = scratch.url;
    db = createDatabase({ connectionString: settings.DATABASE_URL, max: 2 });
    // the job's replay runs in a worker of this database and task queue (its own process)
    worker = startWorkerProcess({ ...integrationEnv(), ...settings, LOG_LEVEL: 'warn', OUTBOUND_DISPATCH: 'false' });
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, ...settings });
  }, 60_000);
  afterAll(async () => {
    if (worker !== undefined) {
      worker.kill('SIGTERM');
      await exited(worker);
    }
    if (api !== undefined) await releaseTaskQueue(api.deps.temporal.client, settings.TEMPORAL_TASK_QUEUE);
    await api?.close();
    await db?.destroy();
    await scratch?.release();
  }, 60_000);

  const poll = async (path: string) => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const response = await api.request('GET', path, { token: LEGACY });
      expect(response.status).toBe(200);
      if (response.body.job.status === 'completed' || response.body.job.status === 'failed') return response.body.job;
      if (Date.now() > deadline) throw new Error(`simulation still ${response.body.job.status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  it('runs in the worker and reports what the CLI reports for the same history; writes only its job row', async () => {
    const now = new Date();
    await seedSimulationMonth(db, now, `api-sim`);

    const started = await api.request('POST', '/v1/admin/journeys/trial-conversion/simulate', { token: LEGACY, body: { since: '30d' } });
    expect(started.status).toBe(202);
    expect(started.body.job).toMatchObject({
      journeyId: 'trial-conversion',
      status: 'pending',
      limit: 10_000,
      progress: { processed: 0, total: null },
      result: null,
    });

    const job = await poll(`/v1/admin/journeys/trial-conversion/simulations/${started.body.job.id}`);
    expect(job.error).toBeNull();
    expect(job.status).toBe('completed');
    expect(job.progress).toEqual({ processed: 200, total: 200 });
    expect(job.result.report).toMatchObject(expectedSimulationMonth);
    expect(job.result.actual).toEqual({});

    // the CLI over the same window of the same database: the same counts and samples
    const cli = await runSimulation(db, { journey: trialConversion, since: '30d', limit: 10_000, now: new Date(job.window.until) });
    const { rate: _cliRate, ...cliReport } = cli.report;
    const { rate: _jobRate, ...jobReport } = job.result.report;
    expect(jobReport).toEqual(cliReport);
    expect(job.result.window).toEqual(cli.window);

    expect(await db.selectFrom('journeyStates').select('id').execute()).toEqual([]);
    expect(await db.selectFrom('emailSends').select('id').execute()).toEqual([]);
    const audit = await db.selectFrom('auditLogs').selectAll().where('action', '=', 'simulate').execute();
    expect(audit).toMatchObject([{ resource: 'journey', resourceId: 'trial-conversion', detail: { jobId: job.id, since: '30d', limit: 10_000 } }]);
  }, 180_000);

  it('answers 404 for an unknown journey or job and 400 for a bad window or limit; needs full-admin', async () => {
    const path = '/v1/admin/journeys/trial-conversion/simulate';
    expect((await api.request('POST', '/v1/admin/journeys/no-such-journey/simulate', { token: LEGACY, body: { since: '30d' } })).status).toBe(404);
    for (const body of [{ since: 'banana' }, { since: '2999-01-01' }, { since: '30d', limit: 0 }, { since: '30d', extra: true }, {}]) {
      const response = await api.request('POST', path, { token: LEGACY, body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error).toEqual(expect.any(String));
    }
    const badWindow = await api.request('POST', path, { token: LEGACY, body: { since: 'banana' } });
    expect(badWindow.body.error).toContain("since: expected a duration such as '30d'");
    expect((await api.request('GET', `/v1/admin/journeys/trial-conversion/simulations/${randomUUID()}`, { token: LEGACY })).status).toBe(404);
    expect((await api.request('GET', '/v1/admin/journeys/trial-conversion/simulations/not-a-uuid', { token: LEGACY })).status).toBe(400);

    const started = await api.request('POST', path, { token: LEGACY, body: { since: '1d', limit: 5 } });
    expect(started.status).toBe(202);
    // a job is found under its own journey only
    expect((await api.request('GET', `/v1/admin/journeys/welcome-series/simulations/${started.body.job.id}`, { token: LEGACY })).status).toBe(404);

    const journeyAdmin = await issueApiKey(api, LEGACY, 'simulation-journey-admin', ['journey-admin']);
    expect((await api.request('POST', path, { token: journeyAdmin, body: { since: '30d' } })).status).toBe(403);
    expect((await api.request('GET', `/v1/admin/journeys/trial-conversion/simulations/${started.body.job.id}`, { token: journeyAdmin })).status).toBe(403);
  }, 60_000);
});
