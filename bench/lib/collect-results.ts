/**
 * The last step of `npm run bench`: every bench/results/<bench-name>.json (each an array of rows,
 * see results.ts) into bench/results/latest.json, printed as one table. Generic on purpose: a
 * new benchmark only has to write its file. A file that is not an array of rows is reported and
 * left out, never silently dropped.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { benchRow, formatRows, resultsDir, type BenchRow } from './results';

const LATEST = 'latest.json';

function main(): void {
  // on a fresh clone no bench may have written its file yet (the first one failed): latest.json is then empty
  mkdirSync(resultsDir, { recursive: true });
  const files = readdirSync(resultsDir).filter((file) => file.endsWith('.json') && file !== LATEST);
  const rows: BenchRow[] = [];
  const problems: string[] = [];
  for (const file of files.sort()) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(path.join(resultsDir, file), 'utf8'));
    } catch (error) {
      problems.push(`${file}: ${(error as Error).message}`);
      continue;
    }
    const parsed = z.array(benchRow).safeParse(json);
    if (parsed.success) rows.push(...parsed.data);
    else problems.push(`${file}: ${parsed.error.issues[0]?.message ?? 'not an array of rows'}`);
  }
  writeFileSync(path.join(resultsDir, LATEST), `${JSON.stringify(rows, null, 2)}\n`);
  console.log(`\n[bench] ${rows.length} results from ${files.length} file(s) → bench/results/${LATEST}\n${formatRows(rows)}`);
  for (const problem of problems) console.error(`[bench] skipped ${problem}`);
  const failed = rows.filter((row) => !row.pass).length;
  console.log(`[bench] ${rows.length - failed} pass, ${failed} fail`);
  if (problems.length > 0) process.exitCode = 1;
}

main();
