import { describe, expect, it } from 'vitest';
import { runEntry } from '../../../test/run-entry';
import { withScratchDatabase } from '../../../test/scratch-database';
import { releaseTaskQueue } from '../../../test/task-queue-cleanup';
import { integrationEnv } from '../../../test/test-env';

const run = (entry: string, env: Record<string, string | undefined>, untilOutput?: RegExp, signal?: NodeJS.Signals) =>
  runEntry(entry, env, { untilOutput, signal });

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
    const env = { ...integrationEnv(), LOG_LEVEL: 'info', TEMPORAL_TASK_QUEUE: `sigterm-${process.pid}`, OUTBOUND_DISPATCH: 'false' };
    const result = await run('apps/worker/src/main.ts', env, /polling task queue/, 'SIGTERM');
    await releaseTaskQueue(env.TEMPORAL_ADDRESS, env.TEMPORAL_TASK_QUEUE);
    expect(result.output).toContain('polling task queue');
    expect(result.output).toContain('worker stopped');
    expect(result.code).toBe(0);
  });
});
