/**
 * npm run bench -- sleeping-enrollments [--enrollments N] [--hold S] [--check-runs M]
 *
 * N users (default 2,000; 100,000 take about an hour on two cores) are enrolled through the batch
 * enrollment path into payment-recovery, whose run sends one email (to an SES emulator of the
 * bench's own) and then sleeps 7 days, the longest sleep of the shipped journeys (a timer costs the
 * same whatever its length). An api process and a worker process of the bench's own serve it, so
 * their memory is theirs alone. Measured: the worker's RSS, sampled every second from the first
 * enrollment to the end of a quiet hold (default 60 s): its peak against 1 GiB, and its flatness
 * (mean of the last third of the samples over the middle third; a bounded sticky cache levels off,
 * an unbounded one keeps growing); the api's RSS after against before; then p99 of the admin
 * journey detail and states list with N states stored; then `waymark journeys check` of M live
 * runs (default 10,000) against a working tree whose grace period is a day shorter (compatible:
 * every run is listed as getting its final notice on day 6), as the command runs by default (replay
 * of a 200-run sample + forward diff of every run), against 60 s per 10,000 runs, with the replay
 * alone printed beside it. When M > N, the other M − N live runs are state rows copied from the N
 * sleepers (entered after them, so the replay's oldest-first sample is the real runs; the forward diff reads
 * only the database): seeding real runs is the bench's slow part (about an hour per 100,000), and
 * the check of a run past the sample costs the same with or without a Temporal run behind it.
 * Rows in bench/results/sleeping-enrollments.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Connection } from '@temporalio/client';
import { temporalClient } from '@waymark/runtime/client';
import { sql } from 'kysely';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase } from '@waymark/core/db/database';
import { writeWorkflowBundle } from '../apps/worker/src/workflow-bundle';
import { checkJourneys } from '../apps/cli/src/journeys-check/check-journeys';
import type { JourneysCheckDeps } from '../apps/cli/src/journeys-check/fetch-history';
import { DEPLOYMENT_JOURNEYS_DIR } from '../runtime/runtime';
import { freePort } from '../test/free-port';
import { waitForPort } from '../test/throwaway-services';
import { exited } from '../test/worker-process';
import { WORKER_NODE_FLAGS } from '../apps/worker/src/node-flags';
import { BENCH_CACHE_URL, prepareBenchDatabase } from './lib/bench-server';
import { limitRow, writeBenchResults } from './lib/results';
import { deleteAlertSchedule, terminateRunsOnQueue } from '../test/task-queue-cleanup';

const { values } = parseArgs({
  options: { enrollments: { type: 'string', default: '2000' }, hold: { type: 'string', default: '60' }, 'check-runs': { type: 'string', default: '10000' } },
});
const CHECK_RUNS = Number(values['check-runs']);
const ENROLLMENTS = Number(values.enrollments);
const HOLD_SECONDS = Number(values.hold);
const JOURNEY = 'payment-recovery';
const BATCH = 500; // the batch route's maximum
const IN_FLIGHT = 2_000;
const ADMIN_QUERIES = 200;
/** the goal: 10,000 running enrollments checked in at most 60 s; scaled to N */
const CHECK_SECONDS_PER_10K = 60;

const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_sleeping';
const repoRoot = path.resolve(import.meta.dirname, '..');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

const mean = (list: readonly number[]) => list.reduce((sum, n) => sum + n, 0) / Math.max(1, list.length);
const percentile = (list: readonly number[], p: number) => [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(list.length * p))]!;

async function main(): Promise<void> {
  if (!Number.isInteger(ENROLLMENTS) || ENROLLMENTS < 1) throw new Error('--enrollments must be a positive integer');
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    AUTH_SECRET: 'bench-auth-secret-at-least-32-characters',
    EMAIL_PROVIDER_API_KEY: 'bench:bench',
  });
  const taskQueue = `waymark-bench-sleeping-${process.pid}`;
  const adminKey = `bench-${randomUUID()}-${randomUUID()}`;
  const bundle = path.join(tmpdir(), `waymark-bench-sleeping-${process.pid}.js`);
  const [apiPort, sesPort] = [await freePort(), await freePort()];
  const env = {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    CACHE_URL: BENCH_CACHE_URL,
    AUTH_SECRET: 'bench-auth-secret-at-least-32-characters',
    EMAIL_PROVIDER_API_KEY: 'bench:bench',
    ADMIN_API_KEY: adminKey,
    RATE_LIMIT_MAX: '100000000',
    TEMPORAL_ADDRESS: config.temporal.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    TEMPORAL_WORKFLOW_BUNDLE: bundle,
    SES_ENDPOINT: `http://127.0.0.1:${sesPort}`,
    PORT: String(apiPort),
    HOST: '127.0.0.1',
    API_PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
  };
  const children: ChildProcess[] = [];
  const node = (script: string, flags: readonly string[] = []) => {
    const child = spawn(process.execPath, [...flags, '--import', 'tsx', script], { cwd: repoRoot, env, stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(child);
    return child;
  };
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = temporalClient(connection, config.temporal.namespace, config.encryptionKeys, false);
  const db = createDatabase({ connectionString: databaseUrl, max: 2 });
  try {
    await Promise.all([prepareBenchDatabase(databaseUrl), writeWorkflowBundle(bundle)]);
    children.push(spawn(path.join(repoRoot, 'node_modules/.bin/aws-ses-v2-local'), ['--host', '127.0.0.1', '--port', String(sesPort)], { stdio: 'ignore' }));
    const api = node('apps/api/src/server.ts');
    const worker = node('apps/worker/src/main.ts', WORKER_NODE_FLAGS);
    await Promise.all([waitForPort(apiPort, 180_000), waitForPort(sesPort)]);
    console.log(`api on port ${apiPort}, worker pid ${worker.pid}; enrolling ${ENROLLMENTS} users`);
    const url = `http://127.0.0.1:${apiPort}`;
    const call = async (route: string, body?: unknown) => {
      const response = await fetch(`${url}${route}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${adminKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (response.status >= 300) throw new Error(`${route} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
      return response.json() as Promise<Record<string, unknown>>;
    };
    // warm both admin routes once, then the api's footprint before any enrollment
    await call(`/v1/admin/journeys/${JOURNEY}`);
    await call(`/v1/admin/journeys/${JOURNEY}/states?limit=50`);
    const apiBefore: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      apiBefore.push(rssMb(api.pid!));
      await sleep(1_000);
    }

    const workerRss: number[] = [];
    const apiRss: number[] = [];
    const sampler = setInterval(() => {
      workerRss.push(rssMb(worker.pid!));
      apiRss.push(rssMb(api.pid!));
    }, 1_000);
    const started = performance.now();
    // Posted only as fast as the worker puts them to sleep, at most IN_FLIGHT ahead: posted all at
    // once, 100,000 starts sit as a backlog in the dev server's SQLite store, whose writes then slow
    // every start (measured: 100 MB/s written, 8 enrollments/s), which measures that backlog, not
    // sleeping runs. A start that Temporal did not take within its deadline is parked in the DLQ
    // (docs/scaling.md, outages): counted apart, so an overloaded server shows as parked runs, not
    // as a hang.
    let posted = 0;
    let asleep = 0;
    let parked = 0;
    let lastLog = 0;
    while (asleep + parked < ENROLLMENTS) {
      if (posted < ENROLLMENTS && posted - (asleep + parked) < IN_FLIGHT) {
        const users = Array.from({ length: Math.min(BATCH, ENROLLMENTS - posted) }, (_, i) => ({
          userId: `sleeper-${posted + i}`,
          userEmail: `sleeper-${posted + i}@bench.local`,
          properties: { amount: '49.00' },
        }));
        await call(`/v1/admin/journeys/${JOURNEY}/enroll/batch`, { users });
        posted += users.length;
        continue;
      }
      if (performance.now() - lastLog > 10_000) {
        lastLog = performance.now();
        const seconds = (performance.now() - started) / 1000;
        console.log(
          `${asleep} of ${ENROLLMENTS} asleep (${(asleep / seconds).toFixed(1)}/s), ${parked} starts parked, ${posted} posted; worker RSS ${workerRss.at(-1)?.toFixed(0)} MB`,
        );
      }
      await sleep(1_000);
      const row = await db
        .selectNoFrom((eb) => [
          eb.selectFrom('journeyStates').select(eb.fn.countAll<string>().as('n')).where('journeyId', '=', JOURNEY).where('status', '=', 'waiting').as('asleep'),
          eb.selectFrom('dlqEntries').select(eb.fn.countAll<string>().as('n')).where('source', '=', 'journey').as('parked'),
        ])
        .executeTakeFirstOrThrow();
      asleep = Number(row.asleep);
      parked = Number(row.parked);
    }
    const enrollSeconds = (performance.now() - started) / 1000;
    console.log(
      `${asleep} enrollments asleep (${parked} starts parked in the DLQ) after ${enrollSeconds.toFixed(1)} s (${(asleep / enrollSeconds).toFixed(1)} per second, email sent included)`,
    );
    await sleep(HOLD_SECONDS * 1000);
    clearInterval(sampler);
    const apiAfter = mean(apiRss.slice(-5));

    const timeAdmin = async (route: string) => {
      const times: number[] = [];
      for (let i = 0; i < ADMIN_QUERIES; i += 1) {
        const t = performance.now();
        await call(route);
        times.push(performance.now() - t);
      }
      return percentile(times, 0.99);
    };
    const detailP99 = await timeAdmin(`/v1/admin/journeys/${JOURNEY}`);
    const statesP99 = await timeAdmin(`/v1/admin/journeys/${JOURNEY}/states?status=waiting&limit=50`);

    const check = await timeJourneysCheck({ db, client, encryptionKeys: config.encryptionKeys }, asleep, CHECK_RUNS);

    const third = Math.floor(workerRss.length / 3);
    const middle = mean(workerRss.slice(third, 2 * third));
    const last = mean(workerRss.slice(2 * third));
    console.log(
      `worker RSS MB (every ${Math.max(1, Math.floor(workerRss.length / 20))} s): ${workerRss
        .filter((_, i) => i % Math.max(1, Math.floor(workerRss.length / 20)) === 0)
        .map((mb) => mb.toFixed(0))
        .join(' ')}`,
    );
    console.log(
      `api RSS MB: before ${mean(apiBefore).toFixed(0)}, after ${apiAfter.toFixed(0)}; worker max cached workflows ${config.temporal.maxCachedWorkflows}`,
    );
    writeBenchResults('sleeping-enrollments', [
      limitRow(`worker RSS peak, ${asleep} enrollments asleep`, 'MB', Math.max(...workerRss), 1024),
      limitRow(`worker RSS, last third / middle third of the run`, 'ratio', last / middle, 1.1),
      limitRow(`api RSS after / before ${ENROLLMENTS} enrollments`, 'ratio', apiAfter / mean(apiBefore), 1.25),
      limitRow(`admin journey detail p99, ${asleep} states`, 'ms', detailP99, 50),
      limitRow(`admin journey states list p99, ${asleep} states`, 'ms', statesP99, 50),
      limitRow(
        `journeys check of ${check.runs} running enrollments (${asleep} with a Temporal run; replay of a 200 sample + forward diff of all)`,
        's',
        check.seconds,
        (CHECK_SECONDS_PER_10K * check.runs) / 10_000,
      ),
    ]);
  } finally {
    // the sleeping runs would otherwise wake in a week on a queue nobody polls: one server-side
    // batch termination, or one by one when the server runs its one allowed batch already
    const query = `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'`;
    await connection.workflowService
      .startBatchOperation({
        namespace: config.temporal.namespace,
        jobId: randomUUID(),
        reason: 'benchmark cleanup',
        visibilityQuery: query,
        terminationOperation: {},
      })
      .catch(() => terminateRunsOnQueue(client, taskQueue))
      .catch((error: unknown) => console.error('terminating the bench runs failed:', error));
    await deleteAlertSchedule(client, taskQueue).catch((error: unknown) => console.error('deleting the alert schedule of the bench queue failed:', error));
    for (const child of children) {
      child.kill('SIGTERM');
      await exited(child);
    }
    await connection.close();
    await db.destroy();
    rmSync(bundle, { force: true });
  }
}

/**
 * `journeys check` of `runs` live runs (the sleepers, plus copies of their state rows up to `runs`)
 * against a copy of journeys/ whose grace period is 6 days: first replay only (the sample), then as
 * the command runs by default (replay + forward diff).
 */
async function timeJourneysCheck(deps: JourneysCheckDeps, asleep: number, runs: number): Promise<{ seconds: number; runs: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'waymark-bench-check-'));
  const copies = Math.max(0, runs - asleep);
  try {
    await sql`
      insert into journey_states (journey_id, user_id, user_email, current_node_id, status, workflow_id, workflow_run_id, context, entry_count, journey_version, created_at, updated_at)
      select s.journey_id, 'copy-' || n || '-' || s.user_id, s.user_email, s.current_node_id, s.status, 'copy-' || n || '-' || s.workflow_id, s.workflow_run_id,
             s.context, s.entry_count, s.journey_version, now(), now()
      from generate_series(1, ${copies}) n
      join lateral (select * from journey_states where journey_id = ${JOURNEY} and status = 'waiting' order by id offset (n - 1) % ${Math.max(1, asleep)} limit 1) s on true`.execute(
      deps.db,
    );
    cpSync(DEPLOYMENT_JOURNEYS_DIR, dir, { recursive: true });
    const file = path.join(dir, `${JOURNEY}.ts`);
    writeFileSync(file, readFileSync(file, 'utf8').replace("ctx.sleep('7 days'", "ctx.sleep('6 days'"));
    const options = { journeysDir: dir, journeyId: JOURNEY, sample: 200, base: DEPLOYMENT_JOURNEYS_DIR };
    let started = performance.now();
    const replay = await checkJourneys(deps, { ...options, forward: false });
    const replaySeconds = (performance.now() - started) / 1000;
    started = performance.now();
    const report = await checkJourneys(deps, options);
    const seconds = (performance.now() - started) / 1000;
    const differences = report.journeys.flatMap((journey) => journey.forward.flatMap((diff) => ('differences' in diff ? diff.differences : [])));
    console.log(
      `journeys check of ${asleep} runs: replay of ${replay.replayed} (${replay.incompatible} incompatible) ${replaySeconds.toFixed(1)} s; ` +
        `replay + forward diff of ${report.compared} (${report.changed} changed) ${seconds.toFixed(1)} s; ` +
        differences.map((difference) => `${difference.runs} ${difference.summary}`).join('; '),
    );
    if (report.compared !== asleep + copies || report.changed !== report.compared || report.incompatible > 0)
      throw new Error(`journeys check: expected ${asleep + copies} runs compared, all compatible and changed`);
    return { seconds, runs: asleep + copies };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await sql`delete from journey_states where journey_id = ${JOURNEY} and user_id like 'copy-%'`.execute(deps.db);
  }
}

main().catch((error: unknown) => {
  console.error('bench sleeping-enrollments failed:', error);
  process.exit(1);
});
