import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { expect } from 'vitest';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { writeWorkflowBundle } from '../apps/worker/src/workflow-bundle';
import { startSesEventPublisher, type SesEventPublisher } from '../scripts/ses-events/publisher';
import type { EmulatorEmail } from './email-emulator';
import { eventually } from './eventually';
import { freePort } from './free-port';
import { openScratchDatabase } from './scratch-database';
import { releaseTaskQueue } from './task-queue-cleanup';
import { requestJson, type TestApi } from './test-api';
import { integrationEnv } from './test-env';
import { waitForPort } from './throwaway-services';
import { exited, startWorkerProcess } from './worker-process';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * With event publishing, how long a send whose attempt a kill interrupted waits for SES's event
 * before it is sent again: longer than an api restart, so an event held up by the api's kill (the
 * publisher retries it, as SNS does) still settles its send instead of a resend.
 */
const SETTLE_MINUTES = '2';

/** SES statuses of a send the provider accepted (its events may have moved it past `sent`) */
const ACCEPTED = new Set(['sent', 'delivered']);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A process SIGKILLed when the work has reached `at` (a share of `total`), then started again. */
export interface CrashKill {
  at: number;
  target: 'worker' | 'api';
}

/**
 * The api and worker processes of a crash test (as `npm start` runs them, so they can be
 * SIGKILLed mid-work) on a database, task queue and workflow bundle of their own, sending either
 * straight to the SES emulator or through the local stack's SES event publisher
 * (scripts/ses-events, in this process) with SES_EVENT_PUBLISHING on. One stack serves both modes:
 * `usePublishing` stops the running processes, and the next ones start in the new mode.
 */
export interface CrashStack {
  /** the test's own pool on the stack's database */
  db: Db;
  apiUrl: string;
  api: TestApi['request'];
  usePublishing(on: boolean): Promise<void>;
  /** an api and a worker up: the ones left running, else new ones */
  ensureRunning(): Promise<void>;
  /**
   * SIGKILLs the worker or the api each time `progress()` reaches a kill's share of `total`, and
   * starts it again 2 s later, as a supervisor would. Returns `progress()` right after each kill.
   */
  killDuring(progress: () => Promise<number>, total: number, kills: readonly CrashKill[], afterApiRestart?: () => Promise<void>): Promise<number[]>;
  close(): Promise<void>;
}

export async function openCrashStack(adminKey: string, name: string): Promise<CrashStack> {
  const queue = `${name}-${randomUUID().slice(0, 8)}`;
  const bundle = path.join(tmpdir(), `waymark-${name}-${process.pid}.js`);
  const scratch = await openScratchDatabase();
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const webhookSecret = `whsec-${randomUUID()}`;
  const configurationSet = `${name}-${randomUUID().slice(0, 8)}`;
  const publisher: SesEventPublisher = await startSesEventPublisher({ emulatorUrl: integrationEnv().SES_ENDPOINT, log: (line) => console.warn(line) });
  publisher.subscribe(configurationSet, `http://sns:${webhookSecret}@127.0.0.1:${apiPort}/v1/webhooks/email-provider`);
  const base = {
    ...integrationEnv(),
    DATABASE_URL: scratch.url,
    ADMIN_API_KEY: adminKey,
    TEMPORAL_TASK_QUEUE: queue,
    // built once: each restarted worker polls in seconds instead of running webpack again
    TEMPORAL_WORKFLOW_BUNDLE: bundle,
    PORT: String(apiPort),
    HOST: '127.0.0.1',
    API_PUBLIC_URL: apiUrl,
    LOG_LEVEL: 'warn',
  };
  // SES event publishing as the local stack runs it: every send's SES events reach this stack's
  // api, so a send a kill left unknown settles itself (docs/email.md, "Exactly once")
  const publishing = {
    SES_ENDPOINT: publisher.url,
    SES_CONFIGURATION_SET: configurationSet,
    SES_EVENT_PUBLISHING: 'true',
    DELIVERY_UNKNOWN_SETTLE_MINUTES: SETTLE_MINUTES,
    EMAIL_PROVIDER_WEBHOOK_SECRET: webhookSecret,
    EMAIL_PROVIDER_SNS_DEV_CERT_URL: publisher.certificateUrlPrefix,
  };
  let env: Record<string, string> = base;
  const children: ChildProcess[] = [];
  const db = createDatabase({ connectionString: scratch.url, max: 2 });
  await writeWorkflowBundle(bundle);

  const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;
  const running = (script: string) => children.find((child) => alive(child) && child.spawnargs.includes(script));
  const startApi = async () => {
    const api = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/server.ts'], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      // its warnings (a webhook refused, a send resent) stay in the output: a failure in CI is read from them
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.push(api);
    await waitForPort(apiPort, 180_000);
    return api;
  };
  const startWorker = () => {
    const worker = startWorkerProcess(env, 'inherit');
    children.push(worker);
    return worker;
  };
  const stop = async (signal: NodeJS.Signals) => {
    for (const child of children) {
      if (alive(child)) child.kill(signal);
      await exited(child);
    }
  };
  const ensureRunning = async () => {
    if (running('apps/worker/src/main.ts') === undefined) startWorker();
    if (running('apps/api/src/server.ts') === undefined) await startApi();
  };

  return {
    db,
    apiUrl,
    api: requestJson(apiUrl),
    async usePublishing(on) {
      await stop('SIGTERM');
      env = on ? { ...base, ...publishing } : base;
    },
    ensureRunning,
    async killDuring(progress, total, kills, afterApiRestart) {
      await ensureRunning();
      // the test's own pool shares two busy cores with the stack: a read that times out is read again
      const read = () =>
        progress().catch((error: unknown) => {
          console.warn(`crash test: progress read failed, reading again: ${(error as Error).message}`);
          return -1;
        });
      const atKill: number[] = [];
      for (const { at, target } of kills) {
        await eventually(read, (n) => n >= Math.floor(at * total), { timeoutMs: 600_000, intervalMs: 100, what: `${at * 100}% of ${total} done` });
        const child = running(target === 'worker' ? 'apps/worker/src/main.ts' : 'apps/api/src/server.ts');
        if (child !== undefined) {
          child.kill('SIGKILL');
          await exited(child);
        }
        atKill.push(await eventually(read, (n) => n >= 0, { timeoutMs: 60_000 }));
        // down for a moment, as a crashed process under a supervisor
        await sleep(2_000);
        if (target === 'worker') startWorker();
        else {
          await startApi();
          await afterApiRestart?.();
        }
      }
      return atKill;
    },
    async close() {
      await stop('SIGTERM');
      await releaseTaskQueue(env.TEMPORAL_ADDRESS ?? integrationEnv().TEMPORAL_ADDRESS, queue);
      // not idle(): with the api gone, an event still being retried would hold the close for minutes
      await publisher.close();
      await db.destroy();
      await scratch.release();
      rmSync(bundle, { force: true });
    },
  };
}

/** The SES emulator's emails to a domain since `sinceSeconds` (the store is shared: never cleared). */
export async function storedEmails(domain: string, sinceSeconds: number): Promise<EmulatorEmail[]> {
  const response = await fetch(`${integrationEnv().SES_ENDPOINT}/store?since=${sinceSeconds}`);
  const store = (await response.json()) as { emails: EmulatorEmail[] };
  return store.emails.filter((email) => email.destination.to.some((to) => to.toLowerCase().endsWith(`@${domain}`)));
}

/** A send row as a crash test reads it */
export interface CrashSendRow {
  id: string;
  toEmail: string;
  messageId: string | null;
  status: string;
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

/**
 * What every crash test asserts at the end, whatever it sent: no address twice at the provider
 * or in the send rows, nothing to anyone not `expected`, a send row for everyone expected, and
 * nothing parked in the DLQ. Then, by mode:
 *
 * - publishing on: a kill inside the provider call leaves nothing unknown. SES's Send event settles
 *   the send (it had reached SES), or none comes within the settle window and it is sent again
 *   under the same row (it had not): every expected address's email accepted exactly once, and
 *   each row's message id is the one SES accepted.
 * - off, default policy: a send whose fate its attempt cannot know is dropped (`unknown_dropped`,
 *   at most once, docs/email.md "Exactly once"); every other row was accepted, message id for
 *   message id, and anything else SES holds went to a dropped send's address.
 *
 * Messages are matched on id AND address: the emulator's ids are random 9-digit numbers, so two of
 * thousands are sometimes equal, which an id alone took for a message to the wrong contact.
 */
export async function expectEachOnce(
  db: Db,
  input: { rows: readonly CrashSendRow[]; stored: readonly EmulatorEmail[]; expected: ReadonlySet<string>; publishing: boolean },
): Promise<{ accepted: number; dropped: number; droppedButAccepted: number }> {
  const { rows, stored, expected, publishing } = input;
  const rowsPerAddress = countBy(rows, (row) => row.toEmail.toLowerCase());
  const storedPerAddress = countBy(
    stored.flatMap((email) => email.destination.to),
    (to) => to.toLowerCase(),
  );
  const twice = (counts: Map<string, number>) => [...counts].filter(([, n]) => n > 1).map(([address]) => address);
  const unexpected = (counts: Map<string, number>) => [...counts.keys()].filter((address) => !expected.has(address));
  expect({ twice: twice(storedPerAddress), unexpected: unexpected(storedPerAddress) }).toEqual({ twice: [], unexpected: [] });
  expect({ twice: twice(rowsPerAddress), unexpected: unexpected(rowsPerAddress) }).toEqual({ twice: [], unexpected: [] });
  expect([...expected].filter((address) => !rowsPerAddress.has(address))).toEqual([]);
  const parked = await sql<{ n: number }>`
    select count(*)::int as n from dlq_entries where source = 'email' and source_id = any(${rows.map((row) => row.id)}::text[])`.execute(db);
  expect(parked.rows[0]!.n).toBe(0);

  const message = (messageId: string | null | undefined, to: string) => `${messageId ?? ''} ${to.toLowerCase()}`;
  const storedMessages = new Set(stored.map((email) => message(email.messageId, email.destination.to[0]!)));
  const accepted = rows.filter((row) => ACCEPTED.has(row.status));
  const dropped = rows.filter((row) => !ACCEPTED.has(row.status));
  expect(accepted.filter((row) => !storedMessages.has(message(row.messageId, row.toEmail)))).toEqual([]);
  if (publishing) {
    expect(dropped).toEqual([]);
    expect([...expected].filter((address) => storedPerAddress.get(address) !== 1)).toEqual([]);
    return { accepted: accepted.length, dropped: 0, droppedButAccepted: 0 };
  }
  expect(dropped.filter((row) => row.status !== 'unknown_dropped')).toEqual([]);
  const acceptedMessages = new Set(accepted.map((row) => message(row.messageId, row.toEmail)));
  const droppedAddresses = new Set(dropped.map((row) => row.toEmail.toLowerCase()));
  const others = stored.filter((email) => !acceptedMessages.has(message(email.messageId, email.destination.to[0]!)));
  expect(others.filter((email) => !droppedAddresses.has(email.destination.to[0]!.toLowerCase()))).toEqual([]);
  return { accepted: accepted.length, dropped: dropped.length, droppedButAccepted: others.length };
}
