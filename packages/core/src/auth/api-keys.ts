import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { ApiKeyRow } from '../db/schema';
import { notFound } from '../errors/app-error';
import { generateApiKey } from './api-key-secret';
import { parseScopes, type Scope } from './scopes';
import { paginate } from '../db/paginate';

export interface ApiKeyRecord {
  id: string;
  name: string;
  keyPrefix: string;
  scopes: Scope[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
}

export function toApiKeyRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    keyPrefix: row.keyPrefix,
    scopes: parseScopes(row.scopes),
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
    lastUsedAt: row.lastUsedAt,
    createdAt: row.createdAt,
  };
}

export interface CreateApiKeyInput {
  name: string;
  scopes: Scope[];
  expiresAt?: Date | null | undefined;
}

/** The raw key is returned here and never again: only its SHA-256 hash is stored. */
export async function createApiKey(db: Db, input: CreateApiKeyInput): Promise<ApiKeyRecord & { key: string }> {
  const generated = generateApiKey();
  const row = await db
    .insertInto('apiKeys')
    .values({
      name: input.name,
      keyPrefix: generated.keyPrefix,
      keyHash: generated.keyHash,
      scopes: [...new Set(input.scopes)],
      expiresAt: input.expiresAt ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...toApiKeyRecord(row), key: generated.key };
}

export interface ListApiKeysQuery {
  limit: number;
  offset: number;
  includeRevoked: boolean;
}

export async function listApiKeys(db: Db, query: ListApiKeysQuery): Promise<{ keys: ApiKeyRecord[]; total: number }> {
  let base = db.selectFrom('apiKeys');
  if (!query.includeRevoked) base = base.where('revokedAt', 'is', null);
  const { rows, total } = await paginate(base.selectAll().orderBy('createdAt', 'desc').orderBy('id'), base, query);
  return { keys: rows.map(toApiKeyRecord), total };
}

/** Marks the key revoked and returns its hash so callers can evict it from every cache. */
export async function revokeApiKey(db: Db, id: string): Promise<{ keyHash: string }> {
  const row = await db
    .updateTable('apiKeys')
    .set({ revokedAt: sql<Date>`coalesce(revoked_at, now())` })
    .where('id', '=', id)
    .returning(['keyHash'])
    .executeTakeFirst();
  if (!row) throw notFound('API key not found');
  return { keyHash: row.keyHash };
}

export async function findActiveApiKeyByHash(db: Db, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('apiKeys').selectAll().where('keyHash', '=', keyHash).where('revokedAt', 'is', null).executeTakeFirst();
}

export async function hasAnyActiveApiKey(db: Db): Promise<boolean> {
  const row = await db
    .selectNoFrom((eb) => eb.exists(eb.selectFrom('apiKeys').select('id').where('revokedAt', 'is', null)).as('present'))
    .executeTakeFirstOrThrow();
  return Boolean(row.present);
}

export async function touchApiKey(db: Db, id: string): Promise<void> {
  await db.updateTable('apiKeys').set({ lastUsedAt: new Date() }).where('id', '=', id).execute();
}
