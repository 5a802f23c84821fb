import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { limitRow, writeBenchResults } from './lib/results';

/**
 * `npm run bench -- journey-kit`: the journey test kit's speed goals, measured on the suite an
 * author runs (`npm run test:journeys`, every journeys/*.wf.test.ts): each test under 200 ms after
 * its file's shared start, the whole suite under 10 s. The targets are the baselines (limit rows).
 * The suite's CPU time (this process's reaped children: vitest, its forks and the Java test
 * servers) divided by the machine's cores is the wall time the suite cannot beat on an idle box,
 * which is what argues a quiet-box figure from a run on a busy one.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CORES = 2;

const report = z.object({
  testResults: z.array(z.object({ name: z.string(), assertionResults: z.array(z.object({ fullName: z.string(), duration: z.number().nullish() })) })),
});

/** CPU seconds of this process's children that have ended (utime + stime from /proc, in clock ticks). */
function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields after the command: state is index 0, so cutime and cstime (stat fields 16 and 17) are 13 and 14
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

const dir = mkdtempSync(path.join(tmpdir(), 'journey-kit-bench-'));
try {
  const outputFile = path.join(dir, 'report.json');
  const loadBefore = loadavg()[0]!;
  const cpuBefore = childrenCpuSeconds();
  const started = performance.now();
  const run = spawnSync('npx', ['--no-install', 'vitest', 'run', '--project', 'workflow', '--reporter=json', `--outputFile=${outputFile}`, 'journeys/'], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const wallSeconds = (performance.now() - started) / 1000;
  const cpuSeconds = childrenCpuSeconds() - cpuBefore;
  if (run.status !== 0) throw new Error(`the journey suite failed (exit ${String(run.status)}); run npm run test:journeys to see why`);

  const tests = report
    .parse(JSON.parse(readFileSync(outputFile, 'utf8')))
    .testResults.flatMap((file) => file.assertionResults.map((test) => ({ name: test.fullName, ms: test.duration ?? 0 })))
    .sort((a, b) => a.ms - b.ms);
  const median = tests[Math.floor(tests.length / 2)]!;
  const slowest = tests.at(-1)!;
  writeBenchResults('journey-kit', [
    limitRow(`journeys/ suite, wall (${tests.length} tests)`, 's', wallSeconds, 10),
    limitRow(`journeys/ suite, CPU ÷ ${CORES} cores (idle-box floor of the wall)`, 's', cpuSeconds / CORES, 10),
    limitRow('journey test, median', 'ms', median.ms, 200),
    limitRow(`journey test, slowest (${slowest.name.slice(0, 60)})`, 'ms', slowest.ms, 200),
  ]);
  console.log(`load average (1 min): ${loadBefore.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
