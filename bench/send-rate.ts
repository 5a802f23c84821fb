/**
 * npm run bench -- send-rate — the send-rate governor (docs/email.md, "Send rate"): two worker
 * processes (lib/send-rate-worker.ts: the production send activity, SES transport and governor)
 * share one budget through Redis. Phases, each on a fresh run of journey states:
 *  1. baseline: BENCH_BASELINE_SENDS (default 1,000) sends with no budget (the emulator has no
 *     GetAccount, so unlimited): what the two workers manage on this machine, measured in the same run;
 *  2. SES_MAX_SEND_RATE=50: BENCH_SENDS (default 3,000) sends must go out at 50 ± 5 per second
 *     overall, none in the DLQ, none twice;
 *  3. the same behind test/throttling-ses-proxy.ts answering Throttling for 10 % of SendEmail
 *     calls: none in the DLQ, every send delivered exactly once.
 * Each phase has a database of its own (BENCH_DATABASE_URL's name + `_<phase>`): the emulator's
 * message ids are random 9-digit numbers, so the more sends one `email_sends` table holds, the likelier
 * two collide on its unique provider-id index (a send the bench would count in the DLQ that real SES,
 * whose ids are unique, never causes).
 * Rate = (sends − 1) / (last sent_at − first sent_at). Duplicates and deliveries are counted in the
 * store of an emulator of the bench's own (lib/ses-emulator-process.ts), per recipient. BENCH_CACHE_URL
 * picks the Redis (and its db) the budget lives in; SES_MAX_SEND_RATE the budget (default 50).
 */
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { benchEnv, prepareBenchDatabase } from './lib/bench-server';
import { bandRow, limitRow, openResultsLog, ratioRow, writeBenchResults, type BenchRow } from './lib/results';
import type { SendRateWorkerTally } from './lib/send-rate-worker';
import { startSesEmulator } from './lib/ses-emulator-process';
import { startThrottlingSesProxy } from '../test/throttling-ses-proxy';

const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_send_rate';
const SENDS = Number(process.env.BENCH_SENDS ?? 3_000);
const BASELINE_SENDS = Number(process.env.BENCH_BASELINE_SENDS ?? 1_000);
const RATE = Number(process.env.SES_MAX_SEND_RATE || 50);
const workerEntry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'lib/send-rate-worker.ts');

interface PhaseResult {
  sends: number;
  sent: number;
  ratePerSecond: number;
  dlq: number;
  delivered: number;
  duplicates: number;
  tallies: SendRateWorkerTally[];
}

/** One send-rate worker child process; resolves once its governor has its budget. */
async function startWorker(env: Record<string, string>, logName: string) {
  const log = openResultsLog(logName);
  const child = spawn(process.execPath, ['--import', 'tsx', workerEntry], { env: { ...process.env, ...env }, stdio: ['ignore', log, log, 'ipc'] });
  const messages: unknown[] = [];
  let wake: (() => void) | undefined;
  child.on('message', (message) => {
    messages.push(message);
    wake?.();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const next = async (): Promise<unknown> => {
    while (messages.length === 0) {
      const code = await Promise.race([new Promise<'message'>((resolve) => (wake = () => resolve('message'))), exited]);
      if (code !== 'message' && messages.length === 0) throw new Error(`send-rate worker exited (code ${code}); see bench/results/${logName}.log`);
    }
    return messages.shift();
  };
  if ((await next()) !== 'ready') throw new Error('send-rate worker: unexpected first message');
  return { go: () => child.send('go'), tally: async () => (await next()) as SendRateWorkerTally, exited };
}

/** BENCH_DATABASE_URL with `_<label>` appended to the database name. */
function phaseDatabaseUrl(label: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `${url.pathname}_${label}`;
  return url.toString();
}

async function phase(ses: string, label: string, sends: number, env: Record<string, string>): Promise<PhaseResult> {
  const phaseUrl = phaseDatabaseUrl(label);
  await prepareBenchDatabase(phaseUrl);
  const db = createDatabase({ connectionString: phaseUrl, max: 2 });
  try {
    return await runPhase(db, phaseUrl, ses, label, sends, env);
  } finally {
    await db.destroy();
  }
}

async function runPhase(db: Db, phaseUrl: string, ses: string, label: string, sends: number, env: Record<string, string>): Promise<PhaseResult> {
  const run = randomUUID().slice(0, 8);
  await sql`
    insert into journey_states (journey_id, user_id, user_email, status, workflow_id)
    select 'welcome-series', 'rate-' || ${run} || '-' || n, 'rate-' || ${run} || '-' || n || '@bench.local', 'active', 'bench-rate-' || ${run} || '-' || lpad(n::text, 6, '0')
    from generate_series(1, ${sends}::int) as n`.execute(db);
  const workerEnv = benchEnv(phaseUrl, { ...env, BENCH_SEND_RUN: run });
  const workers = await Promise.all(
    [0, 1].map((index) => startWorker({ ...workerEnv, BENCH_SEND_INDEX: String(index) }, `send-rate.${label}.worker-${index}`)),
  );
  const started = Date.now();
  for (const worker of workers) worker.go();
  const tallies = await Promise.all(workers.map((worker) => worker.tally()));
  await Promise.all(workers.map((worker) => worker.exited));
  console.log(`${label}: ${sends} sends handled in ${((Date.now() - started) / 1000).toFixed(1)} s; workers ${JSON.stringify(tallies)}`);

  const span = await db
    .selectFrom('emailSends')
    .select([sql<number>`count(*)::int`.as('sent'), sql<Date>`min(sent_at)`.as('first'), sql<Date>`max(sent_at)`.as('last')])
    .where('toEmail', 'like', `rate-${run}-%`)
    .where('sentAt', 'is not', null)
    .executeTakeFirstOrThrow();
  const perSecond = await db
    .selectFrom('emailSends')
    .select([sql<number>`extract(epoch from date_trunc('second', sent_at))::bigint`.as('second'), sql<number>`count(*)::int`.as('n')])
    .where('toEmail', 'like', `rate-${run}-%`)
    .where('sentAt', 'is not', null)
    .groupBy(sql`1`)
    .orderBy(sql`1`)
    .execute();
  console.log(`${label}: sends per second: ${perSecond.map((row) => row.n).join(' ')}`);
  const dlq = await db
    .selectFrom('dlqEntries')
    .innerJoin('emailSends', (join) => join.on(sql`dlq_entries.source_id::text`, '=', sql`email_sends.id::text`))
    .select(sql<number>`count(*)::int`.as('n'))
    .where('emailSends.toEmail', 'like', `rate-${run}-%`)
    .executeTakeFirstOrThrow();
  const store = (await (await fetch(`${ses}/store`)).json()) as { emails: { destination: { to: string[] } }[] };
  const perAddress = new Map<string, number>();
  for (const email of store.emails) for (const to of email.destination.to) if (to.startsWith(`rate-${run}-`)) perAddress.set(to, (perAddress.get(to) ?? 0) + 1);
  const seconds = span.sent > 1 ? (span.last.getTime() - span.first.getTime()) / 1000 : 0;
  return {
    sends,
    sent: span.sent,
    ratePerSecond: seconds > 0 ? (span.sent - 1) / seconds : 0,
    dlq: dlq.n,
    delivered: perAddress.size,
    duplicates: [...perAddress.values()].reduce((sum, count) => sum + count - 1, 0),
    tallies,
  };
}

async function main(): Promise<void> {
  const emulator = await startSesEmulator('send-rate.ses');
  const ses = emulator.url;
  let baseline: PhaseResult, governed: PhaseResult, throttled: PhaseResult;
  try {
    baseline = await phase(ses, 'baseline', BASELINE_SENDS, { SES_ENDPOINT: ses, SES_MAX_SEND_RATE: '' });
    governed = await phase(ses, 'governed', SENDS, { SES_ENDPOINT: ses, SES_MAX_SEND_RATE: String(RATE) });
    const proxy = await startThrottlingSesProxy({ target: ses, throttleRatio: 0.1 });
    try {
      throttled = await phase(ses, 'throttled', SENDS, { SES_ENDPOINT: proxy.url, SES_MAX_SEND_RATE: String(RATE) });
      console.log(`throttling proxy: ${JSON.stringify(proxy.counts())}`);
    } finally {
      await proxy.close();
    }
  } finally {
    await emulator.stop();
  }

  const rows: BenchRow[] = [
    ratioRow(
      `two workers with no budget (baseline, ${BASELINE_SENDS} sends) vs the ${RATE}/s budget: room above it`,
      'sends/s',
      baseline.ratePerSecond,
      RATE,
      1.1,
    ),
    bandRow(`SES_MAX_SEND_RATE=${RATE}, two workers, ${SENDS} sends: overall rate`, 'sends/s', governed.ratePerSecond, RATE, 0.1),
    ratioRow(`governed rate vs the two workers' own (baseline) rate`, 'sends/s', governed.ratePerSecond, baseline.ratePerSecond, 0),
    limitRow(`governed: sends in the DLQ`, 'count', governed.dlq, 0),
    limitRow(`governed: duplicate deliveries`, 'count', governed.duplicates, 0),
    limitRow(`governed: sends not delivered`, 'count', SENDS - governed.delivered, 0),
    limitRow(`10 % Throttling: sends in the DLQ`, 'count', throttled.dlq, 0),
    limitRow(`10 % Throttling: duplicate deliveries`, 'count', throttled.duplicates, 0),
    limitRow(`10 % Throttling: sends not delivered`, 'count', SENDS - throttled.delivered, 0),
    bandRow(`10 % Throttling: overall rate`, 'sends/s', throttled.ratePerSecond, RATE, 0.2),
  ];
  writeBenchResults('send-rate', rows);
}

main().catch((error: unknown) => {
  console.error('bench send-rate failed:', error);
  process.exit(1);
});
