/**
 * Export memory benchmark (issue 5): peak RSS growth of a real api process while it streams a
 * 10k-contact export, against a same-run baseline (the same number of requests to a 100-row
 * admin list). Target: growth < 50 MB. Run: `npx tsx bench/export.ts` (uses BENCH_DATABASE_URL or
 * a database `waymark_bench_export`, recreated on every run).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createDatabase } from '@waymark/core/db/database';
import { integrationEnv } from '../test/test-env';
import { prepareBenchDatabase } from './lib/bench-server';
import { limitRow, writeBenchResults } from './lib/results';

const CONTACTS = 10_000;
const ROUNDS = 5;
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_export';
const key = `bench-${randomUUID()}-${randomUUID()}`;
const port = 3900 + Math.floor(Math.random() * 90);

async function prepareDatabase(): Promise<void> {
  await prepareBenchDatabase(databaseUrl);
  const db = createDatabase({ connectionString: databaseUrl, max: 2 });
  // realistic rows: a dozen properties each (about 600 bytes of JSON)
  await sql`insert into contacts (external_id, email, properties)
    select 'bench-' || g, 'bench' || g || '@example.com',
      jsonb_build_object('plan', 'pro', 'seats', g % 50, 'company', 'Company ' || g, 'country', 'NO', 'signup_source', 'organic',
        'notes', repeat('x', 400), 'tags', jsonb_build_array('a', 'b', 'c'), 'score', g * 1.5)
    from generate_series(1, ${CONTACTS}) g`.execute(db);
  await db.destroy();
}

function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return Number(match?.[1] ?? 0) * 1024;
}

/** Peak RSS of the api while `work` runs, sampled every 10 ms, minus its RSS just before. */
async function peakGrowth(pid: number, work: () => Promise<void>): Promise<number> {
  const before = rssBytes(pid);
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 10);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, rssBytes(pid));
  return peak - before;
}

async function fetchAll(path: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${key}` } });
  if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status}`);
  let bytes = 0;
  const reader = response.body!.getReader();
  for (let part = await reader.read(); !part.done; part = await reader.read()) bytes += part.value.byteLength;
  return bytes;
}

async function main(): Promise<void> {
  await prepareDatabase();
  const env = {
    ...process.env,
    ...integrationEnv(),
    DATABASE_URL: databaseUrl,
    ADMIN_API_KEY: key,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '100000',
  };
  // node --import tsx (not the tsx CLI, which forks): the measured pid is the server itself
  const api = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/server.ts'], { env, stdio: ['ignore', 'ignore', 'ignore'] });
  try {
    for (let attempt = 0; ; attempt += 1) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/v1/health`)).ok) break;
      } catch {
        /* not up yet */
      }
      if (attempt > 300) throw new Error('api did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const pid = api.pid!;
    // warm up both paths (JIT, pools, schema compilation) before measuring
    await fetchAll('/v1/admin/contacts?limit=100');
    await fetchAll('/v1/admin/contacts/export?limit=100');

    let baseline = 0;
    let json = 0;
    let csv = 0;
    let bytes = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      baseline = Math.max(baseline, await peakGrowth(pid, async () => void (await fetchAll('/v1/admin/contacts?limit=100'))));
      json = Math.max(json, await peakGrowth(pid, async () => void (bytes = await fetchAll(`/v1/admin/contacts/export?format=json&limit=${CONTACTS}`))));
      csv = Math.max(csv, await peakGrowth(pid, async () => void (await fetchAll(`/v1/admin/contacts/export?format=csv&limit=${CONTACTS}`))));
    }
    const mb = (value: number) => (value / 1024 / 1024).toFixed(1);
    console.log(`export of ${CONTACTS} contacts (${mb(bytes)} MB of JSON), peak api RSS growth over ${ROUNDS} rounds:`);
    console.log(`  baseline (GET /v1/admin/contacts?limit=100): ${mb(baseline)} MB`);
    console.log(`  export json: ${mb(json)} MB   csv: ${mb(csv)} MB   (body / growth ratio ${(bytes / Math.max(json, 1)).toFixed(1)}x)`);
    const worst = Math.max(json, csv) - baseline;
    console.log(`  growth beyond baseline: ${mb(worst)} MB — ${worst < 50 * 1024 * 1024 ? 'PASS' : 'FAIL'} (< 50 MB)`);
    writeBenchResults('export', [limitRow('export: api RSS growth beyond a list baseline', 'MB', worst / 1024 / 1024, 50)]);
    if (worst >= 50 * 1024 * 1024) process.exitCode = 1;
  } finally {
    api.kill('SIGTERM');
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
