import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { loadConfig } from '@waymark/core/config/config';
import { temporalClient } from '@waymark/runtime/client';
import { temporalConnectionOptions } from '@waymark/temporal/connection';
import type * as FailureConverterModule from '@waymark/temporal/failure-converter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailsTo, uniqueAddress, waitFor } from '../../../test/email-emulator';
import { failingJourneyRun } from '../../../test/failing-journey-run';
import { freePort } from '../../../test/free-port';
import { WORKER_NODE_FLAGS } from '../../worker/src/node-flags';
import { runEntry, startEntry, type RunningEntry } from '../../../test/run-entry';
import { releaseTaskQueue } from '../../../test/task-queue-cleanup';
import { integrationEnv } from '../../../test/test-env';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * What an operator deploys (docs/deploy.md; the Dockerfile runs the same commands): `npm run build`,
 * the compiled CLI's `migrate` as the release step, then the compiled api and worker under
 * NODE_ENV=production on plain node, without the tsx loader, on a task queue of their own.
 */
describe('the production build', () => {
  const queue = `production-build-${randomUUID().slice(0, 8)}`;
  const running: RunningEntry[] = [];
  let env: Record<string, string>;
  let url: string;

  beforeAll(async () => {
    await promisify(execFile)('npm', ['run', '--silent', 'build'], { cwd: repoRoot });
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    env = {
      ...integrationEnv(),
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      TEMPORAL_TASK_QUEUE: queue,
      PORT: String(port),
      HOST: '127.0.0.1',
      API_PUBLIC_URL: url,
      // the shared test database's outbox belongs to the suite's own workers
      OUTBOUND_DISPATCH: 'false',
      // production refuses to start without it (docs/security.md, "Production checklist")
      EMAIL_PROVIDER_WEBHOOK_SECRET: 'sns-password-of-the-subscription',
    };
    const migrate = await runEntry('dist/cli/main.js', env, { args: ['migrate'] });
    expect(migrate.output).toContain('[migrate]');
    expect(migrate.code).toBe(0);
    // the worker as deployed (docs/deploy.md), with its node flags
    running.push(startEntry('dist/api/server.js', env), startEntry('dist/worker/main.js', env, { nodeFlags: WORKER_NODE_FLAGS }));
    const [api, worker] = running as [RunningEntry, RunningEntry];
    await Promise.all([api.waitForOutput(/Waymark API listening/, 120_000), worker.waitForOutput(/polling task queue/, 120_000)]);
  }, 600_000);

  afterAll(async () => {
    for (const entry of running) {
      entry.kill('SIGTERM');
      await entry.exited;
    }
    await releaseTaskQueue(integrationEnv().TEMPORAL_ADDRESS, queue);
  }, 120_000);

  it('the compiled api and worker start, name the Node they run on, and the api serves health and the studio', async () => {
    for (const entry of running) expect(entry.output()).toContain(`Node ${process.version}`);
    // started with its flags, the worker does not name one as missing (apps/worker/src/node-flags.ts)
    expect(running[1]!.output()).not.toContain('node flag:');
    const health = await fetch(`${url}/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'healthy' });
    const studio = await fetch(`${url}/studio/`);
    expect(studio.status).toBe(200);
    expect(await studio.text()).toContain('<div id="root">');
  });

  it('a compiled worker started without its node flags says which one it misses', async () => {
    // its own queue: it must not take the other worker's runs
    const bare = startEntry('dist/worker/main.js', { ...env, TEMPORAL_TASK_QUEUE: `${queue}-bare` });
    try {
      await bare.waitForOutput(/polling task queue/, 120_000);
      for (const flag of WORKER_NODE_FLAGS) expect(bare.output()).toContain(`node flag: ${flag} is missing`);
    } finally {
      bare.kill('SIGTERM');
      await bare.exited;
      await releaseTaskQueue(integrationEnv().TEMPORAL_ADDRESS, `${queue}-bare`);
    }
  }, 180_000);

  it("a run the compiled worker fails keeps its failure's text sealed (the build's failure converter and workflow bundle)", async () => {
    // each process loads the converter by path (temporal/payload-codec.ts), from the build, not the sources
    const built = path.join(repoRoot, 'dist/temporal/failure-converter.js');
    const { failureConverter } = (await import(built)) as typeof FailureConverterModule;
    expect(failureConverter.options.encodeCommonAttributes).toBe(true);
    const config = loadConfig(env);
    const connection = await Connection.connect(temporalConnectionOptions(config.temporal));
    try {
      const client = temporalClient(connection, config.temporal.namespace, config.encryptionKeys, false);
      const { address, handle, failure } = await failingJourneyRun(client, queue);
      expect(String((failure as Error | undefined)?.cause)).toContain(address);
      expect(JSON.stringify(await handle.fetchHistory())).not.toContain(address);
    } finally {
      await connection.close();
    }
  }, 120_000);

  it('an event sent to the compiled api becomes an email sent by the compiled worker', async () => {
    const created = await runEntry('dist/cli/main.js', env, { args: ['keys', 'create', '--name', `production-build-${randomUUID()}`, '--scopes', 'ingest'] });
    expect(created.code).toBe(0);
    const key = /shown only now:\s+(\S+)/.exec(created.output)?.[1];
    expect(key).toBeDefined();
    const address = uniqueAddress('build');
    const response = await fetch(`${url}/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'user.signed_up', userId: `build-${randomUUID().slice(0, 8)}`, email: address }),
    });
    expect(response.status).toBe(202);
    const emails = await waitFor(
      async () => {
        const sent = await emailsTo(address);
        return sent.length > 0 ? sent : undefined;
      },
      { timeoutMs: 60_000, what: 'the welcome email in the SES emulator' },
    );
    expect(emails).toHaveLength(1);
    expect(emails[0]?.from).toContain('tests@waymark.local');
  });
});
