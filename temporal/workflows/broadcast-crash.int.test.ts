import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROADCAST_SEND_CONCURRENCY } from '@waymark/core/broadcasts/broadcast-chunk';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { writeWorkflowBundle } from '../../apps/worker/src/workflow-bundle';
import type { EmulatorEmail } from '../../test/email-emulator';
import { eventually } from '../../test/eventually';
import { freePort } from '../../test/free-port';
import { openScratchDatabase } from '../../test/scratch-database';
import { releaseTaskQueue } from '../../test/task-queue-cleanup';
import { requestJson } from '../../test/test-api';
import { integrationEnv } from '../../test/test-env';
import { waitForPort } from '../../test/throwaway-services';
import { exited, startWorkerProcess } from '../../test/worker-process';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
const CONTACTS = 5_000;
/** of the CONTACTS, this many of each kind the send gate or the address rules skip */
const SKIPPED = { unsubscribedAll: 10, unsubscribedCategory: 10, suppressed: 10, noEmail: 10 };
const ELIGIBLE = CONTACTS - Object.values(SKIPPED).reduce((sum, n) => sum + n, 0);
/** the share of the eligible contacts sent when each SIGKILL lands: the worker three times, the api once */
const KILLS: readonly { at: number; target: 'worker' | 'api' }[] = [
  { at: 0.1, target: 'worker' },
  { at: 0.3, target: 'worker' },
  { at: 0.45, target: 'api' },
  { at: 0.65, target: 'worker' },
];
const CATEGORY = 'product-updates';
/** the audience of the second test (the send window), a list of its own */
const WINDOW_RECIPIENTS = 5;
const WORKER_KILLS = KILLS.filter((kill) => kill.target === 'worker').length;
/**
 * the most sends one worker has claimed and not yet recorded sent at once: each of the chunk's
 * lanes holds one send from its claim until its "sent" flush has answered
 */
const SENDS_IN_FLIGHT = BROADCAST_SEND_CONCURRENCY;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An api process (apps/api/src/server.ts) as `npm start` runs it, so the test can SIGKILL it. */
function startApiProcess(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/server.ts'], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/**
 * The contacts of the run, seeded in SQL: `c<n>@<domain>` for n = 1..CONTACTS. The first few
 * hundred carry the skip reasons (preference rows by address, or no address at all); the rest are
 * the eligible audience. Returns the eligible addresses.
 */
async function seedContacts(db: Db, domain: string): Promise<Set<string>> {
  const address = (n: number) => `c${n}@${domain}`;
  const { unsubscribedAll, unsubscribedCategory, suppressed, noEmail } = SKIPPED;
  const firstEligible = unsubscribedAll + unsubscribedCategory + suppressed + noEmail + 1;
  await sql`insert into contacts (external_id, email, properties, first_seen_at, last_seen_at, created_at, updated_at)
    select 'crash-' || g, case when g < ${firstEligible - noEmail} or g >= ${firstEligible} then 'c' || g || '@' || ${domain} end,
      jsonb_build_object('firstName', 'Reader ' || g), now(), now(), now(), now()
    from generate_series(1, ${CONTACTS}::int) g`.execute(db);
  const preference = (from: number, count: number, columns: { unsubscribed_all?: boolean; suppressed?: boolean; categories?: Record<string, boolean> }) =>
    sql`insert into email_preferences (user_id, email, unsubscribed_all, suppressed, suppression_reason, categories, created_at, updated_at)
      select 'crash-' || g, 'c' || g || '@' || ${domain}, ${columns.unsubscribed_all ?? false}, ${columns.suppressed ?? false},
        ${columns.suppressed === true ? 'bounce' : null}, ${JSON.stringify(columns.categories ?? {})}::jsonb, now(), now()
      from generate_series(${from}::int, ${from + count - 1}::int) g`.execute(db);
  await preference(1, unsubscribedAll, { unsubscribed_all: true });
  await preference(1 + unsubscribedAll, unsubscribedCategory, { categories: { [CATEGORY]: false } });
  await preference(1 + unsubscribedAll + unsubscribedCategory, suppressed, { suppressed: true });
  await sql`analyze contacts`.execute(db);
  return new Set(Array.from({ length: CONTACTS - firstEligible + 1 }, (_, i) => address(firstEligible + i)));
}

/** The SES emulator's emails to the run's domain since `sinceSeconds` (the store is shared: never cleared). */
async function storedEmails(domain: string, sinceSeconds: number): Promise<EmulatorEmail[]> {
  const response = await fetch(`${integrationEnv().SES_ENDPOINT}/store?since=${sinceSeconds}`);
  const store = (await response.json()) as { emails: EmulatorEmail[] };
  return store.emails.filter((email) => email.destination.to.some((to) => to.toLowerCase().endsWith(`@${domain}`)));
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

/**
 * docs/broadcasts.md, "How it runs": a broadcast to 5,000 contacts while its worker process is
 * SIGKILLed three times mid-send and its api process once, on a database, task queue and processes
 * of this file's own. Whatever a kill interrupts (a chunk of sends, a continue-as-new, a request),
 * every eligible contact ends with exactly one send row, no contact gets two emails, and the
 * provider's store and the rows agree message id for message id. The one exception the send path
 * allows: a kill inside the provider call leaves a send whose fate is unknown. Without SES event
 * publishing (as here) the delivery policy settles it: the default for a category that is not
 * required drops it (`unknown_dropped`, at most once, no DLQ entry: docs/email.md, "Exactly once");
 * the test bounds and reports them.
 */
describe('a broadcast survives worker and api crashes', () => {
  const queue = `broadcast-crash-${randomUUID().slice(0, 8)}`;
  const domain = `${randomUUID().slice(0, 8)}.bcrash.example`;
  const bundle = path.join(tmpdir(), `waymark-broadcast-crash-${process.pid}.js`);
  const children: ChildProcess[] = [];
  let scratch: { url: string; release: () => Promise<void> } | undefined;
  let db: Db | undefined;
  let env: Record<string, string> = {};
  let apiUrl = '';
  let apiPort = 0;

  const startApi = async () => {
    const api = startApiProcess(env);
    children.push(api);
    await waitForPort(apiPort, 180_000);
    return api;
  };
  const startWorker = () => {
    const worker = startWorkerProcess(env);
    children.push(worker);
    return worker;
  };
  /** An api and a worker of this file's own, up: the ones left running, else new ones. */
  const ensureStack = async () => {
    const running = (script: string) => children.some((child) => child.exitCode === null && child.signalCode === null && child.spawnargs.includes(script));
    if (!running('apps/worker/src/main.ts')) startWorker();
    if (!running('apps/api/src/server.ts')) await startApi();
  };
  const kill = async (child: ChildProcess) => {
    child.kill('SIGKILL');
    await exited(child);
  };

  beforeAll(async () => {
    scratch = await openScratchDatabase();
    apiPort = await freePort();
    apiUrl = `http://127.0.0.1:${apiPort}`;
    env = {
      ...integrationEnv(),
      DATABASE_URL: scratch.url,
      ADMIN_API_KEY: LEGACY,
      TEMPORAL_TASK_QUEUE: queue,
      // built once: each restarted worker polls in seconds instead of running webpack again
      TEMPORAL_WORKFLOW_BUNDLE: bundle,
      PORT: String(apiPort),
      HOST: '127.0.0.1',
      API_PUBLIC_URL: apiUrl,
      LOG_LEVEL: 'warn',
    };
    db = createDatabase({ connectionString: scratch.url, max: 2 });
    await writeWorkflowBundle(bundle);
  }, 300_000);

  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited(child);
    }
    await releaseTaskQueue(env.TEMPORAL_ADDRESS ?? integrationEnv().TEMPORAL_ADDRESS, queue);
    await db?.destroy();
    await scratch?.release();
    rmSync(bundle, { force: true });
  }, 120_000);

  it('SIGKILL the worker 3 times and the api once mid-send: every eligible contact gets exactly one email', async () => {
    const startedSeconds = Math.floor(Date.now() / 1000) - 1;
    const eligible = await seedContacts(db!, domain);
    expect(eligible.size).toBe(ELIGIBLE);
    let apiProcess = await startApi();
    let worker = startWorker();
    const api = requestJson(apiUrl);
    const subject = `Crash test ${domain}`;

    const created = await api('POST', '/v1/admin/broadcasts', {
      token: LEGACY,
      body: { name: `crash ${domain}`, templateKey: 'welcome', category: CATEGORY, audience: { all: true }, subject, data: { productName: 'Waymark' } },
    });
    expect(created.status, created.text).toBe(201);
    const id: string = created.body.broadcast.id;
    // a client that sends twice at once (a retry racing its first try): one start, one 409
    const sends = await Promise.all([1, 2].map(() => api('POST', `/v1/admin/broadcasts/${id}/send`, { token: LEGACY })));
    expect(sends.map((send) => send.status).sort()).toEqual([202, 409]);

    const sent = async () => {
      const row = await sql<{ n: number }>`select count(*)::int as n from email_sends where broadcast_id = ${id} and sent_at is not null`.execute(db!);
      return row.rows[0]!.n;
    };
    const reach = (share: number) =>
      eventually(sent, (n) => n >= Math.floor(share * ELIGIBLE), { timeoutMs: 600_000, intervalMs: 100, what: `${share * 100}% of the broadcast sent` });
    const sentAtKill: number[] = [];

    for (const { at, target } of KILLS) {
      await reach(at);
      await kill(target === 'worker' ? worker : apiProcess);
      sentAtKill.push(await sent());
      // down for a moment, as a crashed process under a supervisor
      await sleep(2_000);
      if (target === 'worker') worker = startWorker();
      else {
        apiProcess = await startApi();
        // the client retries its send against the restarted api: refused, nothing starts again
        const retried = await api('POST', `/v1/admin/broadcasts/${id}/send`, { token: LEGACY });
        expect(retried.status).toBe(409);
      }
    }
    // every kill landed while the broadcast was still sending
    expect(sentAtKill).toHaveLength(KILLS.length);
    for (const n of sentAtKill) expect(n).toBeLessThan(ELIGIBLE);

    const done = await eventually(
      async () => (await api('GET', `/v1/admin/broadcasts/${id}`, { token: LEGACY })).body?.broadcast,
      (broadcast) => broadcast?.status === 'sent' || broadcast?.status === 'failed',
      { timeoutMs: 900_000, intervalMs: 1_000, what: 'the broadcast to finish' },
    );
    expect(done.status).toBe('sent');

    // still the same a few seconds on: no orphaned attempt of a killed worker sends late
    await sleep(3_000);
    const rows = (
      await sql<{ id: string; toEmail: string; messageId: string | null; status: string; error: string | null }>`
        select id, to_email as "toEmail", provider_message_id as "messageId", status, error_message as error
        from email_sends where broadcast_id = ${id}`.execute(db!)
    ).rows;
    const stored = (await storedEmails(domain, startedSeconds)).filter((email) => email.subject === subject);
    const rowsPerAddress = countBy(rows, (row) => row.toEmail.toLowerCase());
    const storedPerAddress = countBy(
      stored.flatMap((email) => email.destination.to),
      (to) => to.toLowerCase(),
    );
    const twice = (counts: Map<string, number>) => [...counts].filter(([, n]) => n > 1).map(([address]) => address);
    const unexpected = (counts: Map<string, number>) => [...counts.keys()].filter((address) => !eligible.has(address));

    // at most once: no contact twice, at the provider or in the send rows; nothing to a skipped contact
    expect({ twice: twice(storedPerAddress), unexpected: unexpected(storedPerAddress) }).toEqual({ twice: [], unexpected: [] });
    expect({ twice: twice(rowsPerAddress), unexpected: unexpected(rowsPerAddress) }).toEqual({ twice: [], unexpected: [] });
    // none missing: every eligible contact has its send row
    expect([...eligible].filter((address) => !rowsPerAddress.has(address))).toEqual([]);

    // A kill inside the provider call leaves a send nobody can know the fate of. Without event
    // publishing the default policy drops it (at most once): `unknown_dropped`, never sent again and
    // never parked for a person (docs/email.md, "Exactly once"). Only such sends may be unsent here,
    // at most the sends in flight at the worker kills.
    const sentRows = rows.filter((row) => row.status === 'sent');
    const unknown = rows.filter((row) => row.status !== 'sent');
    expect(unknown.filter((row) => row.status !== 'unknown_dropped')).toEqual([]);
    expect(unknown.length).toBeLessThanOrEqual(WORKER_KILLS * SENDS_IN_FLIGHT);
    const parked = await sql<{ sourceId: string }>`
      select source_id as "sourceId" from dlq_entries where source = 'email' and source_id = any(${unknown.map((row) => row.id)}::text[])`.execute(db!);
    expect(parked.rows).toEqual([]);

    // the provider's store and the send rows agree: each sent row's message, once, to its contact;
    // anything else stored went to a contact whose send is one of the unknown ones. Matched on id
    // AND address: the emulator's ids are random 9-digit numbers, so two of 5,000 are sometimes
    // equal (about one run in seventy), which an id alone took for a message to the wrong contact.
    const delivered = (messageId: string | null | undefined, to: string) => `${messageId ?? ''} ${to.toLowerCase()}`;
    const storedMessages = new Set(stored.map((email) => delivered(email.messageId, email.destination.to[0]!)));
    expect(sentRows.filter((row) => !storedMessages.has(delivered(row.messageId, row.toEmail)))).toEqual([]);
    const sentMessages = new Set(sentRows.map((row) => delivered(row.messageId, row.toEmail)));
    const unknownAddresses = new Set(unknown.map((row) => row.toEmail.toLowerCase()));
    const acceptedUnknown = stored.filter((email) => !sentMessages.has(delivered(email.messageId, email.destination.to[0]!)));
    expect(acceptedUnknown.filter((email) => !unknownAddresses.has(email.destination.to[0]!.toLowerCase()))).toEqual([]);
    console.info(
      `broadcast crash: ${sentRows.length} sent exactly once, ${unknown.length} interrupted inside the provider call (dropped, none in the DLQ; ${acceptedUnknown.length} of them had reached the provider); kills at ${sentAtKill.join(', ')} sent`,
    );

    expect(done.stats).toMatchObject({
      sent: sentRows.length,
      unknownDropped: unknown.length,
      skipped: { unsubscribed: SKIPPED.unsubscribedAll + SKIPPED.unsubscribedCategory, suppressed: SKIPPED.suppressed, noEmail: SKIPPED.noEmail },
    });
  }, 1_800_000);
  it('an api that dies between taking a broadcast out of draft and starting its run: the retried send starts the run', async () => {
    await ensureStack();
    const api = requestJson(apiUrl);
    const run = randomUUID().slice(0, 8);
    const listKey = `crash-${run}`;
    await sql`
      with list as (insert into lists (key, name) values (${listKey}, ${listKey}) returning id),
        added as (
          insert into contacts (external_id, email, properties, first_seen_at, last_seen_at, created_at, updated_at)
          select 'window-' || g, 'w' || g || '-' || ${run} || '@' || ${domain}, '{}'::jsonb, now(), now(), now(), now()
          from generate_series(1, ${WINDOW_RECIPIENTS}::int) g
          returning id
        )
      insert into list_memberships (list_id, contact_id, subscribed, updated_at) select list.id, added.id, true, now() from list, added`.execute(db!);
    const created = await api('POST', '/v1/admin/broadcasts', {
      token: LEGACY,
      body: { name: `window ${run}`, templateKey: 'welcome', category: CATEGORY, audience: { listKey }, subject: `Window ${run}` },
    });
    expect(created.status, created.text).toBe(201);
    const id: string = created.body.broadcast.id;
    // what `send` writes before it starts the run: the api died right after this statement
    await db!.updateTable('broadcasts').set({ status: 'sending', sendRequestedAt: new Date(), updatedAt: new Date() }).where('id', '=', id).execute();

    // the client, seeing no answer, sends again: still 409 (not a draft), but the run is started
    const retried = await api('POST', `/v1/admin/broadcasts/${id}/send`, { token: LEGACY });
    expect(retried.status).toBe(409);
    const done = await eventually(
      async () => (await api('GET', `/v1/admin/broadcasts/${id}`, { token: LEGACY })).body?.broadcast,
      (broadcast) => broadcast?.status === 'sent',
      { timeoutMs: 180_000, intervalMs: 1_000, what: 'the broadcast the retried send started to finish' },
    );
    expect(done.stats.sent).toBe(WINDOW_RECIPIENTS);
  }, 600_000);
});
