/**
 * npm run bench:ingest — POST /v1/events throughput against bare endpoints, in one run on one machine:
 *   (a) an event that triggers nothing        vs (c) one authenticated INSERT + 202
 *   (b) an event that starts a journey         vs (d) an endpoint that only starts the trivial ping
 *       (welcome-series)                              workflow on the same Temporal
 * The baselines exist only in the bench server (bench/lib/baseline-routes.ts). Uses the dev stack
 * (Postgres, Redis, Temporal, the SES emulator) and its own database and task queues. Both starting
 * sides are drained by a worker in a child process (bench/lib/worker-process.ts): the production
 * worker runs welcome-series (entry, welcome email, into its 2-day sleep) and a ping worker runs
 * the trivial workflow on its own queue. After every run the bench waits for that run's work to be
 * drained, so a run never pays for the previous one's backlog. The sleeping runs are terminated at
 * the end. Rows (goals a/c ≥ 0.6, b/d ≥ 0.8) go to bench/results/ingest.json.
 *
 * Then the schema-change check: two more apis on fresh databases, one migrated without the
 * migrations named by BENCH_INGEST_WITHOUT (default: the admin-list and segment indexes and
 * counters, 0130–0132, 0140 and 0142), and (c)/(a) on both in interleaved rounds, so a/c with those migrations is
 * compared with a/c without them in the same run (goal: not lower, judged by the top of the 95 %
 * interval of the rounds' with ÷ without, bench/lib/interval.ts, reaching 1).
 */
import { createApiKey } from '@waymark/core/auth/api-keys';
import { autocannon, benchEnv, CONNECTIONS, startBenchServer, type AutocannonResult } from './lib/bench-server';
import { startBenchWorker } from './lib/bench-worker';
import { sesEmulator } from './lib/ses-emulator-process';
import { ratioInterval } from './lib/interval';
import { infoRow, ratioRow, writeBenchResults } from './lib/results';
import { terminateRunsOnQueue } from '../test/task-queue-cleanup';

const baseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench';
const WITHOUT = (
  process.env.BENCH_INGEST_WITHOUT ??
  '0130_contacts_recency_index,0131_events_segment_index,0132_filter_counts,0140_email_status_counts,0142_journey_live_steps_index'
)
  .split(',')
  .filter(Boolean);

async function main(): Promise<void> {
  const taskQueue = `waymark-bench-${process.pid}`;
  const pingTaskQueue = `waymark-bench-ping-${process.pid}`;
  // the journey-starting scenario sends a welcome email per request: an emulator of the bench's own
  const emulator = await sesEmulator('ingest.ses');
  const env = { TEMPORAL_TASK_QUEUE: taskQueue, SES_ENDPOINT: emulator.url };
  const { url, app, deps } = await startBenchServer(baseUrl, env, { pingTaskQueue });
  const worker = await startBenchWorker({ ...benchEnv(baseUrl, env), BENCH_PING_TASK_QUEUE: pingTaskQueue }, 'ingest.worker');
  const { key } = await createApiKey(deps.db, { name: `bench-${Date.now()}`, scopes: ['ingest'], expiresAt: null });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const run = `${Date.now()}`;

  // a scenario keeps its numbering across its runs: every request is a new event; `drained`
  // resolves once the worker has done the work of every accepted request so far
  // `target`: which api, with which key (the schema-change check below runs a second one)
  const scenario = (label: string, path: string, body: (n: number) => object, drained?: (accepted: number) => Promise<void>, target = { url, headers }) => {
    let n = 0;
    let accepted = 0;
    return async (duration: number) => {
      const result = await autocannon({
        url: `${target.url}${path}`,
        method: 'POST',
        headers: target.headers,
        connections: CONNECTIONS,
        duration,
        requests: [{ setupRequest: (req: object) => ({ ...req, body: JSON.stringify(body(n++)) }) }],
      });
      accepted += result['2xx'];
      const drainStart = Date.now();
      await drained?.(accepted);
      console.log(
        `${label.padEnd(34)} ${result.requests.average.toFixed(0).padStart(6)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  non-2xx ${result.non2xx}  errors ${result.errors}` +
          (drained === undefined ? '' : `  (worker drained ${((Date.now() - drainStart) / 1000).toFixed(1)} s later)`),
      );
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${label}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
      return result;
    };
  };
  const until = async (done: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 120_000;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`the worker did not drain ${what} within 120 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const insert = scenario('(c) baseline INSERT', '/bench/baseline/insert', (n) => ({ name: 'bench.baseline', userId: `c-${run}-${n}` }));
  const noop = scenario('(a) event triggering nothing', '/v1/events', (n) => ({ name: 'bench.noop', userId: `a-${run}-${n % 1000}`, eventProperties: { n } }));
  const start = scenario(
    '(d) baseline workflow start',
    '/bench/baseline/start',
    (n) => ({ name: 'bench.start', userId: `d-${run}-${n}` }),
    // autocannon stops at its deadline with requests in flight: those starts count too (≥)
    (accepted) => until(async () => (await worker.pings()) >= accepted, 'the ping runs'),
  );
  const journeyStart = scenario(
    '(b) event starting a journey',
    '/v1/events',
    (n) => ({ name: 'user.signed_up', userId: `b-${run}-${n}`, email: `b-${run}-${n}@bench.local` }),
    // a welcome-series run is drained once it sleeps (its welcome email sent)
    (accepted) =>
      until(async () => {
        const { n } = await deps.db
          .selectFrom('journeyStates')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('status', '=', 'waiting')
          .where('userId', 'like', `b-${run}-%`)
          .executeTakeFirstOrThrow();
        return Number(n) >= accepted;
      }, 'the welcome-series runs'),
  );

  // ROUNDS short alternating pairs, summed: the machine's speed drifts over seconds, and many
  // short pairs expose both sides alike. A warm-up of each side first (pools, JIT, the key cache).
  const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
  const SECONDS = Number(process.env.BENCH_INGEST_SECONDS ?? 4);
  const pairs = async (base: (d: number) => Promise<AutocannonResult>, measured: (d: number) => Promise<AutocannonResult>) => {
    await base(2);
    await measured(2);
    const sums = { base: 0, measured: 0 };
    for (let round = 1; round <= ROUNDS; round += 1) {
      sums.base += (await base(SECONDS)).requests.average;
      sums.measured += (await measured(SECONDS)).requests.average;
    }
    return { base: sums.base / ROUNDS, measured: sums.measured / ROUNDS };
  };
  const plain = await pairs(insert, noop);
  if (process.env.BENCH_INGEST_ONLY === 'no-journey') {
    // a quick look at one side: the journey-starting pairs and the schema-change check are left out
    await Promise.all([worker.stop(), emulator.stop(), app.close()]);
    await deps.close();
    writeBenchResults('ingest', [ratioRow('ingest: event, no journey vs bare INSERT', 'req/s', plain.measured, plain.base, 0.6)]);
    return;
  }
  const starts = await pairs(start, journeyStart);
  await worker.stop();
  await emulator.stop();

  // (c)/(a) on two fresh databases, one without WITHOUT's migrations, rounds interleaved: neither
  // side carries the rows and bloat the runs above left in the main database
  const server = async (side: 'before' | 'after') => {
    const started = await startBenchServer(`${baseUrl}_${side}`, env, { without: side === 'before' ? WITHOUT : [] });
    const { key: sideKey } = await createApiKey(started.deps.db, { name: `bench-${Date.now()}`, scopes: ['ingest'], expiresAt: null });
    const target = { url: started.url, headers: { ...headers, authorization: `Bearer ${sideKey}` } };
    const scenarios = {
      insert: scenario(
        `(c) baseline INSERT, ${side}`,
        '/bench/baseline/insert',
        (n) => ({ name: 'bench.baseline', userId: `c${side}-${run}-${n}` }),
        undefined,
        target,
      ),
      noop: scenario(
        `(a) no journey, ${side}`,
        '/v1/events',
        (n) => ({ name: 'bench.noop', userId: `a${side}-${run}-${n % 1000}`, eventProperties: { n } }),
        undefined,
        target,
      ),
    };
    await scenarios.insert(2);
    await scenarios.noop(2);
    const close = async () => {
      await started.app.close();
      await started.deps.close();
    };
    return { ...scenarios, close };
  };
  const sides = { before: await server('before'), after: await server('after') };
  // mean req/s of each side over the rounds, and each round's with ÷ without
  const means = { after: { c: 0, a: 0 }, before: { c: 0, a: 0 } };
  const roundRatios: number[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    const thisRound = { after: 0, before: 0 };
    // each round starts with the other side, so neither always runs on a warmer box
    for (const side of round % 2 === 1 ? (['before', 'after'] as const) : (['after', 'before'] as const)) {
      const c = (await sides[side].insert(SECONDS)).requests.average;
      const a = (await sides[side].noop(SECONDS)).requests.average;
      means[side].c += c / ROUNDS;
      means[side].a += a / ROUNDS;
      thisRound[side] = c > 0 ? a / c : 0;
    }
    roundRatios.push(thisRound.before > 0 ? thisRound.after / thisRound.before : 0);
  }
  console.log(`  schema change, with ÷ without per round: ${roundRatios.map((ratio) => ratio.toFixed(3)).join(', ')}`);
  await sides.before.close();
  await sides.after.close();
  await app.close();

  // the welcome-series runs sleep for two days: end them
  await terminateRunsOnQueue(deps.temporal.client, taskQueue);
  await deps.close();
  const changed = WITHOUT.join(', ');
  const ratio = (side: keyof typeof means) => means[side].a / means[side].c;
  writeBenchResults('ingest', [
    ratioRow('ingest: event, no journey vs bare INSERT', 'req/s', plain.measured, plain.base, 0.6),
    ratioRow('ingest: event starting a journey vs bare workflow start', 'req/s', starts.measured, starts.base, 0.8),
    ratioRow(`ingest: no journey vs bare INSERT, without ${changed} (interleaved rounds)`, 'req/s', means.before.a, means.before.c, 0.6),
    ratioRow(`ingest: no journey vs bare INSERT, with ${changed} (interleaved rounds)`, 'req/s', means.after.a, means.after.c, 0.6),
    infoRow(`ingest: no-journey ratio with ${changed} / without (same run)`, 'ratio', ratio('after') / ratio('before')),
    // "not lower": a loss larger than the rounds' own spread fails, a last-digit wobble does not
    // (one round has no spread: BENCH_ROUNDS=1 leaves the goal out)
    ...(roundRatios.length < 2
      ? []
      : [ratioRow(`ingest: with ${changed} / without, top of the 95 % interval over the rounds (not lower)`, 'ratio', ratioInterval(roundRatios).high, 1, 1)]),
  ]);
}

main().catch((error: unknown) => {
  console.error('bench:ingest failed:', error);
  process.exit(1);
});
