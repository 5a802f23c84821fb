import { parseArgs } from 'node:util';
import { RedisSessionAdapter } from '@waymark/core/auth/sessions/redis-session-adapter';
import { connectRedis, createRedis } from '@waymark/core/cache/redis';
import type { Db } from '@waymark/core/db/database';
import { isAppError } from '@waymark/core/errors/app-error';
import { createAdmin, resetUserPassword } from '@waymark/core/organizations/admin-accounts';
import { listUsers } from '@waymark/core/users/users';
import { listMemberships } from '@waymark/core/organizations/organizations';

export const adminUsage = `  admin create --email EMAIL [--password PW] [--name NAME]
                                            create an administrator (prints a generated password once)
  admin reset-password --email EMAIL [--password PW]
                                            set a new password and sign the user out everywhere
  admin list                                list the people who can sign in`;

/** `waymark admin …`: accounts made and recovered from the server, never over HTTP (docs/auth.md). */
export async function adminCommand(db: Db, sub: string | undefined, args: string[], env: { cacheUrl: string }): Promise<number> {
  try {
    switch (sub) {
      case 'create':
        return await create(db, args);
      case 'reset-password':
        return await resetPassword(db, args, env);
      case 'list':
        return await list(db);
      default:
        console.error(`unknown command: admin ${sub ?? ''}\n\n${adminUsage}`);
        return 2;
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

function accountArgs(args: string[]) {
  const { values } = parseArgs({ args, options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } } });
  if (values.email === undefined || !values.email.includes('@')) throw new Error('--email is required (an email address)');
  return { email: values.email, password: values.password, name: values.name };
}

async function create(db: Db, args: string[]): Promise<number> {
  const created = await createAdmin(db, accountArgs(args));
  console.log(`Created administrator ${created.user.email} (id ${created.user.id}).`);
  if (created.generatedPassword !== undefined) console.log(`Password, shown only now:\n\n  ${created.generatedPassword}\n`);
  return 0;
}

async function resetPassword(db: Db, args: string[], env: { cacheUrl: string }): Promise<number> {
  const { email, password } = accountArgs(args);
  const reset = await resetUserPassword(db, { email, password });
  console.log(`New password set for ${reset.user.email}.`);
  if (reset.generatedPassword !== undefined) console.log(`Password, shown only now:\n\n  ${reset.generatedPassword}\n`);
  const redis = createRedis(env.cacheUrl, { connectionName: 'waymark-cli' });
  redis.on('error', () => undefined);
  try {
    if (!(await connectRedis(redis))) {
      console.error(`Could not reach Redis at CACHE_URL to revoke the sessions of ${reset.user.email}; run this again when it is up.`);
      return 1;
    }
    await new RedisSessionAdapter({ redis, db }).deleteUserSessions(reset.user.id);
    console.log('Every session of this user was revoked.');
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
