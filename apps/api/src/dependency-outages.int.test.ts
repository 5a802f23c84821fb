import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '@waymark/core/db/database';
import { migrateToLatest } from '@waymark/core/db/migrator';
import { createTestAdmin, SessionClient } from '../../../test/auth-client';
import { eventually } from '../../../test/eventually';
import { startTestApi, type TestApi } from '../../../test/test-api';
import { seedTrackedSends } from '../../../test/tracked-sends';
import { throwawayPostgres, throwawayRedis, type ThrowawayPostgres, type ThrowawayRedis } from '../../../test/throwaway-services';

const LEGACY = `legacy-${randomUUID()}-${randomUUID()}`;
// ports of this file's own instances (never the shared stack's 5432 / 6379)
const REDIS_PORT = 6391;
const PG_PORT = 5442;
// nothing listens here: a Temporal server that is down
const DEAD_TEMPORAL = '127.0.0.1:7291';

/**
 * The api against a Redis and a PostgreSQL of this file's own, each killed (SIGKILL) and
 * restarted while requests keep coming: Redis down degrades (rate limit in memory, tracking and
 * ingest unaffected, sign-in a clear 503); PostgreSQL down answers a clear 503 fast and recovers without a restart.
 */
describe('dependency outages', () => {
  let redis: ThrowawayRedis;
  let postgres: ThrowawayPostgres;
  let api: TestApi;
  let sendId = '';
  let linkId = '';

  beforeAll(async () => {
    redis = throwawayRedis(REDIS_PORT);
    postgres = throwawayPostgres(PG_PORT);
    await Promise.all([redis.start(), postgres.start()]);
    const admin = createDatabase({ connectionString: postgres.url(), max: 1 });
    await sql`create database waymark`.execute(admin);
    await admin.destroy();
    const db = createDatabase({ connectionString: postgres.url('waymark'), max: 1 });
    const migrated = await migrateToLatest(db);
    if (migrated.error !== undefined) throw migrated.error;
    const [send] = await seedTrackedSends(db, [{ toEmail: 'outage@example.com' }]);
    await db.destroy();
    sendId = send!.sendId;
    linkId = send!.linkId;
    api = await startTestApi({ ADMIN_API_KEY: LEGACY, DATABASE_URL: postgres.url('waymark'), CACHE_URL: redis.url, RATE_LIMIT_MAX: '1000' });
  }, 180_000);

  afterAll(async () => {
    await api?.close();
    await redis?.kill();
    await postgres?.destroy();
  }, 60_000);

  const ingest = (userId: string) => api.request('POST', '/v1/events', { token: LEGACY, body: { name: 'outage.checked', userId } });

  it('Redis down: ingest and tracking keep working, the rate limit falls back to memory; back to Redis when it returns', async () => {
    expect((await ingest(`r-${randomUUID()}`)).status).toBe(202);
    await redis.kill();

    const userId = `r-${randomUUID()}`;
    const started = Date.now();
    const during = await ingest(userId);
    expect(during.status).toBe(202);
    expect(Date.now() - started).toBeLessThan(5_000);
    // still counted: the in-memory window answers with the limit headers
    expect(Number(during.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
    const pixel = await fetch(`${api.url}/v1/t/o/${sendId}`);
    expect(pixel.status).toBe(200);
    expect(pixel.headers.get('content-type')).toBe('image/gif');
    const click = await fetch(`${api.url}/v1/t/c/${linkId}`, { redirect: 'manual' });
    expect(click.status).toBe(302);
    expect(click.headers.get('location')).toBe('https://app.example.com/');
    const stored = await api.deps.db.selectFrom('events').select('event').where('userId', '=', userId).execute();
    expect(stored).toEqual([{ event: 'outage.checked' }]);

    await redis.start();
    // ingest succeeds either way (memory fallback); the api is back on Redis once its client
    // reconnects, after a backoff — and the next test's sign-in needs it there
    await eventually(
      async () => api.deps.redis.status,
      (status) => status === 'ready',
      { what: 'the api reconnected to Redis' },
    );
    const after = await ingest(`r-${randomUUID()}`);
    expect(after.status).toBe(202);
  }, 120_000);

  it('Redis down after a good boot: sign-in and sessions fail closed with a clear 503 (no memory fallback), and work again once it is back', async () => {
    const admin = await createTestAdmin(api, 'outage');
    expect((await new SessionClient(api).signIn(admin.email, admin.password)).status).toBe(200);
    await redis.kill();

    const unavailable = { status: 503, body: { error: 'Sign-in is unavailable: the session store (Redis at CACHE_URL) is unreachable' } };
    expect(await new SessionClient(api).signIn(admin.email, admin.password)).toMatchObject(unavailable);
    const unknownCookie = () => api.request('GET', '/api/auth/get-session', { headers: { cookie: 'waymark_session=not-a-session' } });
    expect(await unknownCookie()).toMatchObject(unavailable);
    const reset = await api.request('POST', '/api/auth/reset-password', { body: { token: 'not-a-token', newPassword: 'long enough password' } });
    expect(reset).toMatchObject(unavailable);

    await redis.start();
    await eventually(unknownCookie, (response) => response.status === 401, { what: 'the session store back' });
    // this Redis keeps nothing on disk, so the earlier session went with it; a new one works
    const again = new SessionClient(api);
    expect((await again.signIn(admin.email, admin.password)).status).toBe(200);
    expect((await again.request('GET', '/api/auth/get-session')).status).toBe(200);
  }, 120_000);

  it('Temporal down: a journey-starting event is still accepted at once and its start is kept pending, not parked in the DLQ', async () => {
    const cut = await startTestApi({ ADMIN_API_KEY: LEGACY, DATABASE_URL: postgres.url('waymark'), CACHE_URL: redis.url, TEMPORAL_ADDRESS: DEAD_TEMPORAL });
    try {
      const userId = `t-${randomUUID()}`;
      const started = Date.now();
      const response = await cut.request('POST', '/v1/events', { token: LEGACY, body: { name: 'user.signed_up', userId, email: `${userId}@example.com` } });
      expect(response.status).toBe(202);
      // the start is out of the request path: the answer does not wait for Temporal's deadline
      expect(Date.now() - started).toBeLessThan(5_000);
      // kept for the worker's relay (docs/operations.md, "Temporal outage") once the api's own attempt failed, nothing for a person to retry
      const kept = await eventually(
        () => cut.deps.db.selectFrom('eventEffects').select(['kind', 'journeyId', 'attempts']).where('userId', '=', userId).execute(),
        (rows) => rows.length === 1 && rows[0]!.attempts === 1,
        { what: 'the failed start given back to the relay' },
      );
      expect(kept).toEqual([{ kind: 'start', journeyId: 'welcome-series', attempts: 1 }]);
      const parked = await cut.deps.db
        .selectFrom('dlqEntries')
        .select('id')
        .where(sql<string>`payload -> 'request' ->> 'userId'`, '=', userId)
        .execute();
      expect(parked).toEqual([]);
    } finally {
      await cut.close();
    }
  }, 60_000);

  it('PostgreSQL down: ingest answers 503 {error} within 2 s, and succeeds again once it is back, without a restart', async () => {
    expect((await ingest(`p-${randomUUID()}`)).status).toBe(202);
    await postgres.kill();

    for (let attempt = 0; attempt < 3; attempt += 1) {
      const started = Date.now();
      const down = await ingest(`p-${randomUUID()}`);
      const ms = Date.now() - started;
      expect(down.status).toBe(503);
      expect(down.body).toEqual({ error: 'Service unavailable: the database cannot be reached; try again shortly' });
      expect(down.text).not.toMatch(/ECONNREFUSED|terminated/);
      expect(ms).toBeLessThanOrEqual(2_000);
    }

    await postgres.start();
    const userId = `p-${randomUUID()}`;
    // the first request after the restart may still meet a pooled connection that died with the server
    let back = await ingest(userId);
    for (let attempt = 0; back.status !== 202 && attempt < 20; attempt += 1) {
      expect(back.status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 250));
      back = await ingest(userId);
    }
    expect(back.status).toBe(202);
    const stored = await api.deps.db.selectFrom('events').select('event').where('userId', '=', userId).execute();
    expect(stored).toEqual([{ event: 'outage.checked' }]);
  }, 120_000);
});
