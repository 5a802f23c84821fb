import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withScratchDatabase } from '../../../test/scratch-database';
import { integrationEnv } from '../../../test/test-env';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

interface Exit {
  code: number | null;
  output: string;
}

/** Runs an entry point as its own process (the way `npm start` does) and collects its output. */
function run(entry: string, env: Record<string, string | undefined>, untilOutput?: RegExp, signal?: NodeJS.Signals): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (untilOutput && signal && untilOutput.test(output)) {
        untilOutput = undefined;
        child.kill(signal);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('process start-up', () => {
  it('api exits non-zero naming every missing required variable', async () => {
    const result = await run('apps/api/src/server.ts', {});
    expect(result.code).not.toBe(0);
    for (const name of ['DATABASE_URL', 'AUTH_SECRET', 'EMAIL_PROVIDER_API_KEY']) expect(result.output).toContain(name);
  });

  it('worker exits non-zero naming every missing required variable', async () => {
    const result = await run('apps/worker/src/main.ts', { DATABASE_URL: 'postgres://x@127.0.0.1/x' });
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('AUTH_SECRET');
    expect(result.output).toContain('EMAIL_PROVIDER_API_KEY');
    expect(result.output).not.toContain('DATABASE_URL');
  });

  it('api and worker refuse to start against an unmigrated database', async () => {
    await withScratchDatabase(async (databaseUrl) => {
      const url = new URL(databaseUrl);
      // the scratch database is migrated; a fresh, empty one is made by pointing at a new name
      const env = { ...integrationEnv(), DATABASE_URL: url.toString(), PORT: '0' };
      const { createDatabase } = await import('@waymark/core/db/database');
      const { sql } = await import('kysely');
      const db = createDatabase({ connectionString: url.toString(), max: 1 });
      await sql`drop table kysely_migration`.execute(db);
      await db.destroy();
      for (const entry of ['apps/api/src/server.ts', 'apps/worker/src/main.ts']) {
        const result = await run(entry, env);
        expect(result.code).not.toBe(0);
        expect(result.output).toMatch(/Database is not migrated: \d+ pending migration\(s\).*npm run migrate/);
      }
    });
  });

  it('worker drains and exits 0 on SIGTERM', async () => {
    const env = { ...integrationEnv(), LOG_LEVEL: 'info', TEMPORAL_TASK_QUEUE: `sigterm-${process.pid}` };
    const result = await run('apps/worker/src/main.ts', env, /polling task queue/, 'SIGTERM');
    expect(result.output).toContain('polling task queue');
    expect(result.output).toContain('worker stopped');
    expect(result.code).toBe(0);
  });
});
