/**
 * npm run bench -- webhook-isolation — a few dead webhook endpoints starve nothing (docs/webhooks.md,
 * "Isolation"). The api (bench/lib/api-process.ts) and a worker process as `npm start` runs it
 * (apps/worker/src/main.ts, which works the outbound delivery queue) on a database, task queue and
 * SES emulator of the bench's own, one live endpoint on a local receiver. The same four figures
 * are measured twice in the run:
 *
 * - baseline: the live endpoint alone;
 * - loaded: after BENCH_ISOLATION_DEAD_ENDPOINTS (default 20) endpoints subscribed to every event,
 *   half on a local server that takes the connection and never answers, half on a port nobody
 *   listens on, and an import of BENCH_ISOLATION_CONTACTS contacts (default 10,000), whose
 *   contact.created events leave each dead endpoint a backlog of that many deliveries.
 *
 * The figures: an import of 100 rows (submit → `completed`, goal 10 s), a broadcast to those 100
 * (send → `sent`, goal 10 s), the live endpoint's delivery latency (received − the payload's
 * `timestamp`, p99 over the import's contact.created and the broadcast's email.sent, goal 5 s),
 * and journey emails at BENCH_RATE events/s (default 20) for BENCH_ISOLATION_SECONDS (default 30):
 * `user.signed_up` → welcome accepted by SES, p99 (goal 500 ms). Rows: each loaded figure against
 * the issue's goal (limit rows) and against the same run's baseline (baseline ÷ loaded, goal 0.5:
 * the dead endpoints may cost at most half the speed).
 */
import { randomUUID } from 'node:crypto';
import { loadavg, tmpdir } from 'node:os';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import path from 'node:path';
import { mkdirSync, rmSync } from 'node:fs';
import { sql } from 'kysely';
import { Connection } from '@temporalio/client';
import { temporalClient } from '@waymark/runtime/client';
import { loadConfig } from '@waymark/core/config/config';
import { createDatabase } from '@waymark/core/db/database';
import { outboundEventTypes } from '@waymark/core/outbox/event-types';
import { writeWorkflowBundle } from '../apps/worker/src/workflow-bundle';
import { temporalConnectionOptions } from '../temporal/connection';
import { eventually } from '../test/eventually';
import { releaseTaskQueue } from '../test/task-queue-cleanup';
import { requestJson } from '../test/test-api';
import { startWebhookReceiver } from '../test/webhook-receiver';
import { exited, startWorkerProcess } from '../test/worker-process';
import { startApiProcess } from './lib/api-process';
import { benchEnv, prepareBenchDatabase } from './lib/bench-server';
import { sesEmulator } from './lib/ses-emulator-process';
import { limitRow, ratioRow, resultsDir, writeBenchResults, type BenchRow } from './lib/results';

const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://waymark:waymark@127.0.0.1:5432/waymark_bench_isolation';
const CONTACTS = Number(process.env.BENCH_ISOLATION_CONTACTS ?? 10_000);
const DEAD_ENDPOINTS = Number(process.env.BENCH_ISOLATION_DEAD_ENDPOINTS ?? 20);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_ISOLATION_SECONDS ?? 30);
const SMALL = 100;
/** how long any one figure may take before the bench gives up on it (a liveness bound, not a goal) */
const GIVE_UP_MS = 600_000;
const ADMIN = `bench-admin-${randomUUID()}`;

const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');

interface Figures {
  importMs: number;
  broadcastMs: number;
  liveP99Ms: number;
  journeyP99Ms: number;
  journeyMissing: number;
}

async function main(): Promise<void> {
  const run = randomUUID().slice(0, 8);
  const taskQueue = `waymark-bench-isolation-${process.pid}`;
  const bundle = path.join(tmpdir(), `waymark-bench-isolation-${process.pid}.js`);
  // the emulator's log goes there, before anything else has made it
  mkdirSync(resultsDir, { recursive: true });
  const emulator = await sesEmulator('webhook-isolation.ses');
  const receiver = await startWebhookReceiver();
  const held: Socket[] = [];
  const silent = createServer((socket) => held.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const closedPort = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));

  const env = benchEnv(databaseUrl, {
    TEMPORAL_TASK_QUEUE: taskQueue,
    TEMPORAL_WORKFLOW_BUNDLE: bundle,
    SES_ENDPOINT: emulator.url,
    ADMIN_API_KEY: ADMIN,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  });
  await prepareBenchDatabase(databaseUrl);
  await writeWorkflowBundle(bundle);
  const db = createDatabase({ connectionString: databaseUrl, max: 2, applicationName: 'waymark-bench-probe' });
  const apiProcess = await startApiProcess(env, 'webhook-isolation.api');
  const worker = startWorkerProcess(env);
  const api = requestJson(apiProcess.url);

  const createEndpoint = async (url: string) => {
    const created = await api('POST', '/v1/admin/webhook-endpoints', { token: ADMIN, body: { url, events: [...outboundEventTypes] } });
    if (created.status !== 201) throw new Error(`endpoint not created: ${created.status} ${created.text}`);
  };
  const importContacts = async (tag: string, count: number) => {
    const lines = ['externalId,email', ...Array.from({ length: count }, (_, n) => `${tag}-${n},${tag}-${n}@bench.local`)];
    const started = Date.now();
    const submitted = await api('POST', '/v1/admin/contacts/import', { token: ADMIN, body: { format: 'csv', data: lines.join('\n') } });
    if (submitted.status !== 202) throw new Error(`import refused: ${submitted.status} ${submitted.text}`);
    await eventually(
      async () => (await api('GET', `/v1/admin/contacts/import/${submitted.body.jobId}`, { token: ADMIN })).body?.status,
      (status) => status === 'completed',
      { timeoutMs: GIVE_UP_MS, intervalMs: 100, what: `the import of ${count} rows` },
    );
    return Date.now() - started;
  };

  const measure = async (label: string): Promise<Figures> => {
    const tag = `${label}-${run}`;
    console.log(`[webhook-isolation] ${label}: import of ${SMALL} rows; load average ${load()}`);
    const importMs = await importContacts(tag, SMALL);

    console.log(`[webhook-isolation] ${label}: broadcast to those ${SMALL}`);
    await sql`
      with list as (insert into lists (key, name) values (${tag}, ${tag}) returning id)
      insert into list_memberships (list_id, contact_id, subscribed, updated_at)
      select list.id, contacts.id, true, now() from list, contacts where contacts.external_id like ${`${tag}-%`}`.execute(db);
    const created = await api('POST', '/v1/admin/broadcasts', {
      token: ADMIN,
      body: { name: tag, templateKey: 'reengage-we-miss-you', category: 'newsletter', audience: { listKey: tag }, data: { productName: 'Atlas' } },
    });
    if (created.status !== 201) throw new Error(`broadcast not created: ${created.status} ${created.text}`);
    const broadcastId = created.body.broadcast.id as string;
    const sendAt = Date.now();
    await api('POST', `/v1/admin/broadcasts/${broadcastId}/send`, { token: ADMIN });
    await eventually(
      async () => (await api('GET', `/v1/admin/broadcasts/${broadcastId}`, { token: ADMIN })).body?.broadcast?.status,
      (status) => status === 'sent',
      { timeoutMs: GIVE_UP_MS, intervalMs: 100, what: `the broadcast to ${SMALL}` },
    );
    const broadcastMs = Date.now() - sendAt;

    // the live endpoint: each contact.created of the import and each email.sent of the broadcast
    const live = () => receiver.received.filter((request) => request.path === '/live' && request.body.includes(`${tag}-`));
    const wanted = (type: string) => live().filter((request) => request.body.includes(`"${type}"`)).length;
    await eventually(live, () => wanted('contact.created') >= SMALL && wanted('email.sent') >= SMALL, {
      timeoutMs: GIVE_UP_MS,
      intervalMs: 200,
      what: 'the live endpoint to get every delivery',
    });
    const liveP99Ms = percentile(
      live().map((request) => request.at - Date.parse((JSON.parse(request.body) as { timestamp: string }).timestamp)),
      99,
    );

    console.log(`[webhook-isolation] ${label}: journey emails at ${RATE} events/s for ${SECONDS} s`);
    const issuedAt = new Map<string, number>();
    const posts: Promise<unknown>[] = [];
    const start = Date.now();
    for (let n = 0; n < RATE * SECONDS; n += 1) {
      const wait = start + (n * 1000) / RATE - Date.now();
      if (wait > 0) await sleep(wait);
      const email = `${tag}-j${n}@bench.local`;
      issuedAt.set(email, Date.now());
      posts.push(api('POST', '/v1/events', { token: ADMIN, body: { name: 'user.signed_up', userId: `${tag}-j${n}`, email } }).catch(() => undefined));
    }
    await Promise.all(posts);
    const sentRows = async () =>
      (
        await sql<{ toEmail: string; sentAt: Date }>`
          select to_email as "toEmail", sent_at as "sentAt" from email_sends where to_email like ${`${tag}-j%`} and sent_at is not null`.execute(db)
      ).rows;
    const sent = await eventually(sentRows, (rows) => rows.length >= issuedAt.size, { timeoutMs: 60_000, intervalMs: 500 }).catch(() => sentRows());
    const journeyP99Ms = percentile(
      sent.map((row) => row.sentAt.getTime() - issuedAt.get(row.toEmail)!),
      99,
    );
    const figures = { importMs, broadcastMs, liveP99Ms, journeyP99Ms, journeyMissing: issuedAt.size - sent.length };
    console.log(`  ${JSON.stringify(figures)}; load average ${load()}`);
    return figures;
  };

  await createEndpoint(`${receiver.url}/live`);
  // warm-up: the worker polls, and its first run and send pay for JIT and pools
  await importContacts(`warm-${run}`, 1);
  const baseline = await measure('baseline');

  const silentPort = (silent.address() as AddressInfo).port;
  for (let n = 0; n < DEAD_ENDPOINTS; n += 1) {
    await createEndpoint(n % 2 === 0 ? `http://127.0.0.1:${silentPort}/dead-${n}` : `http://127.0.0.1:${closedPort}/dead-${n}`);
  }
  console.log(`[webhook-isolation] ${DEAD_ENDPOINTS} dead endpoints; importing ${CONTACTS} contacts`);
  await importContacts(`big-${run}`, CONTACTS);
  // the live endpoint drains its own share of the import first: what is left is the dead endpoints' backlog
  await eventually(
    () => receiver.received.filter((request) => request.path === '/live' && request.body.includes(`big-${run}-`)).length,
    (n) => n >= CONTACTS,
    { timeoutMs: GIVE_UP_MS * 2, intervalMs: 1_000, what: `the live endpoint to get the ${CONTACTS} contact.created of the import` },
  );
  const backlog = await sql<{ n: number }>`select count(*)::int as n from webhook_deliveries where status in ('pending', 'retrying')`.execute(db);
  console.log(`  open deliveries: ${backlog.rows[0]!.n}`);
  const loaded = await measure('loaded');

  const at = `${DEAD_ENDPOINTS} dead endpoints, ${CONTACTS} contacts imported`;
  const rows: BenchRow[] = [
    limitRow(`import of ${SMALL} rows (${at})`, 'ms', loaded.importMs, 10_000),
    ratioRow(`import of ${SMALL} rows: no dead endpoints ÷ ${at}`, 'ms/ms', baseline.importMs, loaded.importMs, 0.5),
    limitRow(`broadcast to ${SMALL} contacts (${at})`, 'ms', loaded.broadcastMs, 10_000),
    ratioRow(`broadcast to ${SMALL} contacts: no dead endpoints ÷ ${at}`, 'ms/ms', baseline.broadcastMs, loaded.broadcastMs, 0.5),
    limitRow(`live endpoint delivery, p99 (${at})`, 'ms', loaded.liveP99Ms, 5_000),
    ratioRow(`live endpoint delivery p99: no dead endpoints ÷ ${at}`, 'ms/ms', baseline.liveP99Ms, loaded.liveP99Ms, 0.5),
    limitRow(`event → journey email accepted by SES, p99 at ${RATE} events/s (${at})`, 'ms', loaded.journeyP99Ms, 500),
    ratioRow(`journey email p99 at ${RATE} events/s: no dead endpoints ÷ ${at}`, 'ms/ms', baseline.journeyP99Ms, loaded.journeyP99Ms, 0.5),
    limitRow(`journey emails not sent within 60 s (${at})`, 'count', loaded.journeyMissing, 0),
  ];

  worker.kill('SIGTERM');
  await exited(worker);
  await apiProcess.stop();
  const config = loadConfig(env);
  const connection = await Connection.connect(temporalConnectionOptions(config.temporal));
  // the welcome-series runs sleep for two days, and the worker left its alert schedule: end both
  await releaseTaskQueue(temporalClient(connection, config.temporal.namespace, config.encryptionKeys, false), taskQueue);
  await connection.close();
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
  await receiver.close();
  await emulator.stop();
  await db.destroy();
  rmSync(bundle, { force: true });
  writeBenchResults('webhook-isolation', rows);
}

main().catch((error: unknown) => {
  console.error('bench webhook-isolation failed:', error);
  process.exit(1);
});
