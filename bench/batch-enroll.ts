/**
 * npm run bench -- batch-enroll — POST /v1/admin/journeys/welcome-series/enroll/batch with 500
 * fresh users (the documented maximum), BENCH_ROUNDS times (default 3) after a warm-up; the median answer
 * time against the 2 s goal. No worker polls the bench queue: the answer is what is measured (the
 * guards, then one durable background run started for the batch); the runs are terminated at the end. Row in bench/results/batch-enroll.json.
 */
import { randomUUID } from 'node:crypto';
import { startBenchServer } from './lib/bench-server';
import { limitRow, writeBenchResults } from './lib/results';
import { terminateRunsOnQueue } from '../test/task-queue-cleanup';

const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_enroll';
const USERS = 500;

async function main(): Promise<void> {
  const taskQueue = `waymark-bench-enroll-${process.pid}`;
  const adminKey = `bench-${randomUUID()}-${randomUUID()}`;
  const { url, app, deps } = await startBenchServer(databaseUrl, { TEMPORAL_TASK_QUEUE: taskQueue, ADMIN_API_KEY: adminKey });
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const times: number[] = [];
  // round 0 warms up (JIT, pools, the Temporal channel) and is not counted
  for (let round = 0; round <= rounds; round += 1) {
    const users = Array.from({ length: round === 0 ? 5 : USERS }, (_, i) => ({
      userId: `enroll-${round}-${i}-${randomUUID().slice(0, 8)}`,
      userEmail: `enroll-${round}-${i}@bench.local`,
    }));
    const started = performance.now();
    const response = await fetch(`${url}/v1/admin/journeys/welcome-series/enroll/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ users }),
    });
    const ms = performance.now() - started;
    const body = (await response.json()) as { enrolled?: number; skipped?: number; error?: string };
    if (response.status !== 200 || body.enrolled !== users.length)
      throw new Error(`batch enroll answered ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
    if (round === 0) continue;
    console.log(`round ${round}/${rounds}: ${USERS} users accepted in ${ms.toFixed(0)} ms`);
    times.push(ms);
  }
  await app.close();
  await terminateRunsOnQueue(deps.temporal.client, taskQueue);
  await deps.close();
  const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  writeBenchResults('batch-enroll', [limitRow(`batch enroll of ${USERS} users answers (median of ${rounds})`, 'ms', median, 2000)]);
}

main().catch((error: unknown) => {
  console.error('bench batch-enroll failed:', error);
  process.exit(1);
});
