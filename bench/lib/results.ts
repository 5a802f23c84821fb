/**
 * The result convention every benchmark shares: a script writes its rows to
 * bench/results/<bench-name>.json and prints them; `npm run bench` collects every such file into
 * bench/results/latest.json (bench/collect-results.ts). A row compares a measured value with a
 * baseline measured in the same run (or, for a latency target, with the target itself), so
 * `ratio` is always "higher is better" and `pass` is `ratio >= goal`.
 */
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

export const benchRow = z.object({
  name: z.string().min(1),
  unit: z.string().min(1),
  value: z.number(),
  baseline: z.number(),
  ratio: z.number(),
  goal: z.number(),
  pass: z.boolean(),
});
export type BenchRow = z.infer<typeof benchRow>;

export const resultsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../results');

/** A process log under bench/results/<logName>.log: the folder is git-ignored, so a clean clone has none yet. */
export function openResultsLog(logName: string): number {
  mkdirSync(resultsDir, { recursive: true });
  return openSync(path.join(resultsDir, `${logName}.log`), 'w');
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** A throughput-like row: `value / baseline` must reach `goal` (e.g. 0.6× the bare endpoint). */
export function ratioRow(name: string, unit: string, value: number, baseline: number, goal: number): BenchRow {
  const ratio = baseline > 0 ? value / baseline : 0;
  return { name, unit, value: round(value), baseline: round(baseline), ratio: round(ratio), goal, pass: ratio >= goal };
}

/** A "at most" row (latency, duration): the target is the baseline and `ratio = target / value` must reach 1. */
export function limitRow(name: string, unit: string, value: number, limit: number): BenchRow {
  const ratio = value > 0 ? limit / value : Number.POSITIVE_INFINITY;
  return { name, unit, value: round(value), baseline: limit, ratio: round(Math.min(ratio, 1e6)), goal: 1, pass: value <= limit };
}

/**
 * A "near a target" row (a rate that must hold within ± `tolerance` of the target): the target is
 * the baseline, `ratio = 1 − |value − target| / target` must reach `1 − tolerance`.
 */
export function bandRow(name: string, unit: string, value: number, target: number, tolerance: number): BenchRow {
  const ratio = 1 - Math.abs(value - target) / target;
  return { name, unit, value: round(value), baseline: target, ratio: round(ratio), goal: round(1 - tolerance), pass: ratio >= 1 - tolerance };
}

/** A figure with no goal of its own (e.g. one process's share of a total that has the goal): always passes. */
export function infoRow(name: string, unit: string, value: number): BenchRow {
  return { name, unit, value: round(value), baseline: round(value), ratio: 1, goal: 0, pass: true };
}

/**
 * The ratio as the table prints it: two decimals, or three where two would round a miss up to its
 * goal (0.997 against ≥ 1 read "1.00 FAIL").
 */
export function shownRatio(row: Pick<BenchRow, 'ratio' | 'goal' | 'pass'>): string {
  const short = row.ratio.toFixed(2);
  return !row.pass && Number(short) >= row.goal ? row.ratio.toFixed(3) : short;
}

export function formatRows(rows: readonly BenchRow[]): string {
  const header = ['name', 'unit', 'value', 'baseline', 'ratio', 'goal', 'pass'];
  const cells = rows.map((row) => [row.name, row.unit, String(row.value), String(row.baseline), shownRatio(row), `≥ ${row.goal}`, row.pass ? 'PASS' : 'FAIL']);
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((line) => line[i]!.length)));
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i]!)).join('  ');
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)].join('\n');
}

/** Writes bench/results/<benchName>.json and prints the rows as a table. */
export function writeBenchResults(benchName: string, rows: readonly BenchRow[]): void {
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(path.join(resultsDir, `${benchName}.json`), `${JSON.stringify(rows, null, 2)}\n`);
  console.log(`\n${formatRows(rows)}\n(written to bench/results/${benchName}.json)`);
}
