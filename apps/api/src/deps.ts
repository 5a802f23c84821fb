import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { Redis } from 'ioredis';
import { Authenticator } from '@waymark/core/auth/authenticator';
import { createKeyRevocations, type KeyRevocations } from '@waymark/core/auth/key-revocations';
import { connectRedis, createRedis } from '@waymark/core/cache/redis';
import type { Config } from '@waymark/core/config/config';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { createTemporalGateway, type TemporalGateway } from '@waymark/temporal/client';
import type { AppLogger } from '@waymark/core/logging/logger';

/** Everything the routes need, built once per process and passed down explicitly (no singletons). */
export interface AppDeps {
  config: Config;
  version: string;
  db: Db;
  redis: Redis;
  temporal: TemporalGateway;
  authenticator: Authenticator;
  keyRevocations: KeyRevocations;
  pingDatabase(): Promise<void>;
  close(): Promise<void>;
}

export function readVersion(): string {
  const file = new URL('../../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

export async function createAppDeps(config: Config, logger: AppLogger): Promise<AppDeps> {
  const db = createDatabase({ connectionString: config.databaseUrl, applicationName: 'waymark-api' });
  const redis = createRedis(config.cacheUrl, { connectionName: 'waymark-api' });
  const subscriber = createRedis(config.cacheUrl, { connectionName: 'waymark-api-sub' });
  // ioredis emits 'error' on every failed reconnect; without a listener Node would crash.
  let redisDown = false;
  for (const client of [redis, subscriber]) {
    client.on('error', (error) => {
      if (!redisDown) logger.warn({ err: error }, 'redis: connection error');
      redisDown = true;
    });
    client.on('ready', () => {
      if (redisDown) logger.info('redis: connected');
      redisDown = false;
    });
  }
  await Promise.all([connectRedis(redis), connectRedis(subscriber)]);
  const authenticator = new Authenticator({
    db,
    legacyKey: config.adminApiKey,
    onTouchError: (error) => logger.warn({ err: error }, 'could not record API key lastUsedAt'),
  });
  const keyRevocations = createKeyRevocations({
    publisher: redis,
    subscriber,
    evict: (hash) => authenticator.forget(hash),
    onError: (error) => logger.warn({ err: error }, 'API key revocation broadcast failed; other instances drop it within 60 s'),
  });
  const temporal = createTemporalGateway(config.temporal);
  return {
    config,
    version: readVersion(),
    db,
    redis,
    temporal,
    authenticator,
    keyRevocations,
    async pingDatabase() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await keyRevocations.close();
      redis.disconnect();
      await Promise.allSettled([db.destroy(), temporal.close()]);
    },
  };
}
