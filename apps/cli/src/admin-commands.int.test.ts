import { describe, expect, it } from 'vitest';
import { RedisSessionAdapter } from '@waymark/core/auth/sessions/redis-session-adapter';
import { redisResetTokens } from '@waymark/core/auth/sessions/reset-token-store';
import { SessionManager } from '@waymark/core/auth/sessions/session-manager';
import { connectRedis, createRedis } from '@waymark/core/cache/redis';
import { createDatabase } from '@waymark/core/db/database';
import { generateToken, hashToken } from '@waymark/core/tokens/tokens';
import { verifyCredentials } from '@waymark/core/users/credentials';
import { resetPassword, RESET_TOKEN_LIFETIME_MS } from '@waymark/core/users/password-reset';
import { redisSignInFailures } from '@waymark/core/users/sign-in-failures';
import { runEntry } from '../../../test/run-entry';
import { withScratchDatabase } from '../../../test/scratch-database';
import { integrationEnv } from '../../../test/test-env';

const CLI = 'apps/cli/src/main.ts';

function printedPassword(output: string): string {
  const match = /shown only now:?\s+([A-Za-z0-9_-]+)/.exec(output);
  if (!match?.[1]) throw new Error(`no password in output:\n${output}`);
  return match[1];
}

describe('waymark admin (no API running, database access only)', () => {
  it('creates an admin with a generated password, refuses a duplicate, lists, and resets (revoking sessions and reset links)', async () => {
    await withScratchDatabase(async (databaseUrl) => {
      const env = { DATABASE_URL: databaseUrl, AUTH_SECRET: integrationEnv().AUTH_SECRET, CACHE_URL: integrationEnv().CACHE_URL };
      const created = await runEntry(CLI, env, { args: ['admin', 'create', '--email', 'First@Example.com', '--name', 'Ada'] });
      expect(created.code, created.output).toBe(0);
      const password = printedPassword(created.output);

      const db = createDatabase({ connectionString: databaseUrl, max: 2 });
      const redis = createRedis(env.CACHE_URL, { connectionName: 'cli-test' });
      try {
        const user = await verifyCredentials(db, 'first@example.com', password);
        expect(user).toMatchObject({ email: 'first@example.com', name: 'Ada', role: 'admin' });
        const membership = await db
          .selectFrom('organizationMembers')
          .innerJoin('organizations', 'organizations.id', 'organizationMembers.organizationId')
          .innerJoin('users', 'users.id', 'organizationMembers.userId')
          .select(['slug', 'users.accessRole as role'])
          .where('userId', '=', user.id)
          .execute();
        expect(membership).toEqual([{ slug: 'default', role: 'owner' }]);

        const duplicate = await runEntry(CLI, env, { args: ['admin', 'create', '--email', 'FIRST@example.com', '--password', 'another password'] });
        expect(duplicate.code).toBe(1);
        expect(duplicate.output).toContain('already exists');
        const tooShort = await runEntry(CLI, env, { args: ['admin', 'create', '--email', 'second@example.com', '--password', 'short'] });
        expect(tooShort.code).toBe(1);
        expect(tooShort.output).toContain('at least 8 characters');

        const list = await runEntry(CLI, env, { args: ['admin', 'list'] });
        expect(list.output).toMatch(/first@example\.com\tadmin\tAda\tdefault:owner/);

        await connectRedis(redis);
        const sessions = new SessionManager({ adapter: new RedisSessionAdapter({ redis, db }), secureCookie: false });
        const session = await sessions.create(user.id);
        // a reset link asked for before the operator's reset (stored as the api stores it)
        const resetTokens = redisResetTokens(redis);
        const resetToken = generateToken();
        await resetTokens.save(hashToken(resetToken), { userId: user.id, expiresAt: Date.now() + RESET_TOKEN_LIFETIME_MS });
        const reset = await runEntry(CLI, env, { args: ['admin', 'reset-password', '--email', 'first@example.com'] });
        expect(reset.code, reset.output).toBe(0);
        const newPassword = printedPassword(reset.output);
        expect(await sessions.validate(session.id)).toBeUndefined();
        const resetDeps = {
          db,
          resetTokens,
          sessions,
          signInFailures: redisSignInFailures(redis),
          publicUrl: 'http://localhost',
          keepEmail: () => Promise.reject(new Error('no email in this test')),
        };
        await expect(resetPassword(resetDeps, { token: resetToken, newPassword: 'taken over by an old link', ipAddress: '127.0.0.1' })).rejects.toThrow(
          'Invalid or expired token',
        );
        await expect(verifyCredentials(db, 'first@example.com', password)).rejects.toThrow('Invalid email or password');
        expect((await verifyCredentials(db, 'first@example.com', newPassword)).id).toBe(user.id);
      } finally {
        redis.disconnect();
        await db.destroy();
      }
    });
    // five CLI processes, each a tsx start: 10–18 s apiece on a saturated 2-core box
  }, 180_000);

  it('the API creates the first admin from STUDIO_ADMIN_EMAIL at boot, once, printing a generated password', async () => {
    await withScratchDatabase(async (databaseUrl) => {
      const env = { ...integrationEnv(), DATABASE_URL: databaseUrl, PORT: '0', LOG_LEVEL: 'info', STUDIO_ADMIN_EMAIL: 'boot@example.com' };
      const first = await runEntry('apps/api/src/server.ts', env, { untilOutput: /listening on/, signal: 'SIGTERM' });
      expect(first.output).toContain('First administrator created from STUDIO_ADMIN_EMAIL: boot@example.com');
      const password = printedPassword(first.output);
      const again = await runEntry(
        'apps/api/src/server.ts',
        { ...env, STUDIO_ADMIN_EMAIL: 'other@example.com' },
        { untilOutput: /listening on/, signal: 'SIGTERM' },
      );
      expect(again.output).not.toContain('First administrator created');
      const db = createDatabase({ connectionString: databaseUrl, max: 1 });
      try {
        expect((await verifyCredentials(db, 'boot@example.com', password)).role).toBe('admin');
        expect(await db.selectFrom('users').select('email').execute()).toEqual([{ email: 'boot@example.com' }]);
      } finally {
        await db.destroy();
      }
    });
  });

  it('a production API refuses to start without Redis', async () => {
    const env = {
      ...integrationEnv(),
      NODE_ENV: 'production',
      PORT: '0',
      CACHE_URL: 'redis://127.0.0.1:1',
      EMAIL_PROVIDER_WEBHOOK_SECRET: 'sns-password-of-the-subscription',
    };
    const result = await runEntry('apps/api/src/server.ts', env);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('production needs it for sign-in sessions');
  });
});
