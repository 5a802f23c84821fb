import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { limitRow, writeBenchResults, type BenchRow } from './lib/results';

/**
 * `npm run bench -- journey-kit`: the journey test kit's speed goals, measured on the suite an
 * author runs (`npm run test:journeys`): its fast-mode part (`--project journeys journeys/`: every
 * journey path on the virtual clock, the templates and the event catalog) against each journey
 * test under 200 ms after the file's shared start and the whole suite under 10 s; then, reported
 * separately, its Temporal part (`--project workflow journeys/`: the parity file and the replay
 * test on the Java time-skipping server). The targets are the baselines (limit rows). Each part's
 * CPU time (this process's reaped children: vitest, its forks, the Java test servers) divided by
 * the machine's cores is the wall time it cannot beat on an idle box, which is what argues a
 * quiet-box figure from a run on a busy one.
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

interface SuiteRun {
  wallSeconds: number;
  cpuSeconds: number;
  /** per test, fastest first; `file` relative to the repository */
  tests: { file: string; name: string; ms: number }[];
}

/** Runs one vitest project over journeys/ with its JSON report, timing it. */
function runSuite(project: 'journeys' | 'workflow', dir: string): SuiteRun {
  const outputFile = path.join(dir, `${project}.json`);
  const cpuBefore = childrenCpuSeconds();
  const started = performance.now();
  const run = spawnSync('npx', ['--no-install', 'vitest', 'run', '--project', project, '--reporter=json', `--outputFile=${outputFile}`, 'journeys/'], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const wallSeconds = (performance.now() - started) / 1000;
  const cpuSeconds = childrenCpuSeconds() - cpuBefore;
  if (run.status !== 0) throw new Error(`the journey suite (${project}) failed (exit ${String(run.status)}); run npm run test:journeys to see why`);
  const tests = report
    .parse(JSON.parse(readFileSync(outputFile, 'utf8')))
    .testResults.flatMap((file) =>
      file.assertionResults.map((test) => ({ file: path.relative(repoRoot, file.name), name: test.fullName, ms: test.duration ?? 0 })),
    )
    .sort((a, b) => a.ms - b.ms);
  return { wallSeconds, cpuSeconds, tests };
}

function suiteRows(label: string, suite: SuiteRun): BenchRow[] {
  return [
    limitRow(`${label}: suite wall (${suite.tests.length} tests)`, 's', suite.wallSeconds, 10),
    limitRow(`${label}: suite CPU ÷ ${CORES} cores (idle-box floor of the wall)`, 's', suite.cpuSeconds / CORES, 10),
  ];
}

const median = (tests: SuiteRun['tests']) => tests[Math.floor(tests.length / 2)]!;

const dir = mkdtempSync(path.join(tmpdir(), 'journey-kit-bench-'));
try {
  const loadBefore = loadavg()[0]!;
  const fast = runSuite('journeys', dir);
  const loadBetween = loadavg()[0]!;
  const onTemporal = runSuite('workflow', dir);
  // the journey tests proper: the kit's files beside the journeys (templates/ and sources/ have their own tests)
  const journeyTests = fast.tests.filter((test) => path.dirname(test.file) === 'journeys' && !test.file.endsWith('events.test.ts'));
  const slowest = journeyTests.at(-1)!;
  writeBenchResults('journey-kit', [
    ...suiteRows('fast mode (journeys project)', fast),
    limitRow(`fast mode: journey test, median of ${journeyTests.length}`, 'ms', median(journeyTests).ms, 200),
    limitRow(`fast mode: journey test, slowest (${slowest.name.slice(0, 50)})`, 'ms', slowest.ms, 200),
    // each parity test runs a path in both modes, so the per-test goal is not theirs: printed only
    ...suiteRows('on Temporal (parity + replay, apart)', onTemporal),
  ]);
  const temporalSlowest = onTemporal.tests.at(-1)!;
  console.log(
    `on Temporal, per test: median ${median(onTemporal.tests).ms.toFixed(0)} ms, slowest ${temporalSlowest.ms.toFixed(0)} ms (${temporalSlowest.name})`,
  );
  console.log(`load average (1 min): ${loadBefore.toFixed(2)} before, ${loadBetween.toFixed(2)} between the parts, ${loadavg()[0]!.toFixed(2)} after`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
