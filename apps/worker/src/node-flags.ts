/**
 * The node flags a worker process runs with, wherever it is started: docker-compose.yml,
 * docs/deploy.md, scripts/start.sh, `npm run dev:worker` and the benches (node-flags.test.ts keeps
 * the written commands in line with this list). A production worker started without one of them
 * says so at start (main.ts).
 *
 * `--no-memory-reducer`: V8's memory reducer runs a full garbage collection, and shrinks the
 * heap's limit so that more follow, whenever the process looks idle. A worker sending a journey
 * email every 100 ms looks idle between them, and its ~110 MB heap was marked again and again:
 * without the reducer, 48.0 → 44.1 ms of CPU per journey email across every process (four pairs
 * alternated; bench/HISTORY.md, fifteenth round). The heap no longer shrinks back after a burst;
 * the worker's RSS peak under 2,000 sleeping enrollments did not grow (859 against 991 MB).
 */
export const WORKER_NODE_FLAGS = ['--no-memory-reducer'] as const;

/** The flags of WORKER_NODE_FLAGS that `execArgv` (the process's own node flags) lacks. */
export function missingWorkerNodeFlags(execArgv: readonly string[]): string[] {
  return WORKER_NODE_FLAGS.filter((flag) => !execArgv.includes(flag));
}
