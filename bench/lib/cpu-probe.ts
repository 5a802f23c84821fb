/**
 * The machine's pace: a fixed single-thread workload (sha256 of a 1 KiB buffer, then square roots),
 * timed. Its reading moves when the VM's host gives it less (or more) of a core, which the code
 * under test cannot explain: the same code read 42 and 62 ms of CPU per journey email on one VM
 * within three hours (bench/HISTORY.md, sixteenth round). Compare CPU figures of two runs only
 * when their probes read alike.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';

const HASHES = 40_000;
const ROOTS = 20_000_000;

function once(): number {
  const started = performance.now();
  const block = Buffer.alloc(1024, 7);
  for (let i = 0; i < HASHES; i++) createHash('sha256').update(block).digest();
  let sum = 0;
  for (let i = 1; i <= ROOTS; i++) sum += Math.sqrt(i);
  // the sum is read, so the loop cannot be dropped as dead code
  if (sum < 0) throw new Error('unreachable');
  return performance.now() - started;
}

/** The median of `runs` timings of the fixed workload, in milliseconds. */
export function cpuProbeMs(runs = 3): number {
  const timings = Array.from({ length: runs }, once).sort((a, b) => a - b);
  return timings[Math.floor(runs / 2)]!;
}
