import { RedisSessionAdapter } from '@waymark/core/auth/sessions/redis-session-adapter';
import { redisResetTokens } from '@waymark/core/auth/sessions/reset-token-store';
import { redisSignInFailures } from '@waymark/core/users/sign-in-failures';
import { SessionManager } from '@waymark/core/auth/sessions/session-manager';
import { connectRedis, createRedis } from '@waymark/core/cache/redis';
import type { Db } from '@waymark/core/db/database';
import { isAppError } from '@waymark/core/errors/app-error';
import { createAdmin, resetUserPassword } from '@waymark/core/organizations/admin-accounts';
import { revokeForNewPassword } from '@waymark/core/users/new-password-revocation';
import { listUsers } from '@waymark/core/users/users';
import { listMemberships } from '@waymark/core/organizations/organizations';

/** `waymark admin …`: accounts made and recovered from the server, never over HTTP (docs/auth.md). */
export async function adminCommand(db: Db, sub: 'create' | 'reset-password' | 'list', values: AccountOptions, env: { cacheUrl: string }): Promise<number> {
  try {
    switch (sub) {
      case 'create':
        return await create(db, values);
      case 'reset-password':
        return await resetPassword(db, values, env);
      case 'list':
        return await list(db);
    }
  } catch (error) {
    // validation and conflicts are the operator's to fix: one line, no stack
    if (isAppError(error) && error.status < 500) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
}

export interface AccountOptions {
  email?: string;
  password?: string;
  name?: string;
}

function accountArgs(values: AccountOptions) {
  if (values.email === undefined || !values.email.includes('@')) throw new Error('--email is required (an email address)');
  return { email: values.email, password: values.password, name: values.name };
}

async function create(db: Db, values: AccountOptions): Promise<number> {
  const created = await createAdmin(db, accountArgs(values));
  console.log(`Created administrator ${created.user.email} (id ${created.user.id}).`);
  if (created.generatedPassword !== undefined) console.log(`Password, shown only now:\n\n  ${created.generatedPassword}\n`);
  return 0;
}

async function resetPassword(db: Db, values: AccountOptions, env: { cacheUrl: string }): Promise<number> {
  const { email, password } = accountArgs(values);
  const reset = await resetUserPassword(db, { email, password });
  console.log(`New password set for ${reset.user.email}.`);
  if (reset.generatedPassword !== undefined) console.log(`Password, shown only now:\n\n  ${reset.generatedPassword}\n`);
  const redis = createRedis(env.cacheUrl, { connectionName: 'waymark-cli' });
  redis.on('error', () => undefined);
  try {
    if (!(await connectRedis(redis))) {
      console.error(`Could not reach Redis at CACHE_URL to revoke the sessions and reset links of ${reset.user.email}; run this again when it is up.`);
      return 1;
    }
    // what any new password ends, as the api's password change and reset do (the cookie settings do not matter here)
    const sessions = new SessionManager({ adapter: new RedisSessionAdapter({ redis, db }), secureCookie: true });
    await revokeForNewPassword({ sessions, resetTokens: redisResetTokens(redis), signInFailures: redisSignInFailures(redis) }, reset.user);
    console.log('Every session and outstanding reset link of this user was revoked.');
    return 0;
  } finally {
    redis.disconnect();
  }
}

async function list(db: Db): Promise<number> {
  const users = await listUsers(db);
  if (users.length === 0) console.log('No users yet. Create the first administrator: npm run waymark -- admin create --email you@example.com');
  for (const user of users) {
    const memberships = await listMemberships(db, user.id);
    const orgs = memberships.map((membership) => `${membership.slug}:${membership.role}`).join(', ');
    console.log(`${user.email}\t${user.role}\t${user.name ?? ''}\t${orgs}\tcreated ${user.createdAt.toISOString()}`);
  }
  return 0;
}
