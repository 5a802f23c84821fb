import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { MemberRole, UserRow } from '../db/schema';
import { conflict, notFound } from '../errors/app-error';

/** What the auth routes show of a user (never the password hash). */
export interface User {
  id: string;
  email: string;
  name: string | null;
  /** installation role: `admin` for administrators made from the server, `member` for invited people */
  role: string;
}

export function toUser(row: Pick<UserRow, 'id' | 'email' | 'name' | 'role'>): User {
  return { id: row.id, email: row.email, name: row.name, role: row.role };
}

/** Emails are compared case-insensitively (users_email_key is on lower(email)). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', normalizeEmail(email))
    .executeTakeFirst();
}

export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function getUserById(db: Db, id: string): Promise<UserRow> {
  const row = await findUserById(db, id);
  if (row === undefined) throw notFound('User not found');
  return row;
}

export interface NewUser {
  email: string;
  name?: string | null | undefined;
  passwordHash: string;
  role: 'admin' | 'member';
  /** the person's role over the installation's data (docs/auth.md) */
  accessRole: MemberRole;
}

/** Inserts a user; a second account with the same email (any case) is a 409. */
export async function insertUser(db: Db, user: NewUser): Promise<UserRow> {
  const row = await db
    .insertInto('users')
    .values({
      id: randomUUID(),
      email: normalizeEmail(user.email),
      name: user.name ?? null,
      passwordHash: user.passwordHash,
      role: user.role,
      accessRole: user.accessRole,
    })
    .onConflict((oc) => oc.expression(sql`lower(email)`).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (row === undefined) throw conflict(`A user with email ${normalizeEmail(user.email)} already exists`);
  return row;
}

export async function updatePasswordHash(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ passwordHash, updatedAt: new Date() }).where('id', '=', userId).execute();
}

export async function countUsers(db: Db): Promise<number> {
  const { count } = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return count;
}

export async function listUsers(db: Db): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().orderBy('createdAt').execute();
}
