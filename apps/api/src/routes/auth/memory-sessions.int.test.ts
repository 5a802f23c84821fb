import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { createTestAdmin, resetTokenFor, SessionClient, type AuthTarget } from '../../../../../test/auth-client';
import { freePort } from '../../../../../test/free-port';
import { runEntry, startEntry, type RunningEntry } from '../../../../../test/run-entry';
import { requestJson } from '../../../../../test/test-api';
import { integrationEnv } from '../../../../../test/test-env';

const FALLBACK_WARNING = 'Redis at CACHE_URL is unreachable: sessions, reset tokens and rate-limit counters are kept in memory';

/**
 * An API started as `npm start` starts it, in development, with CACHE_URL on a port where no
 * Redis listens: it boots, warns once, and people can still sign in (sessions and reset tokens
 * in the process's memory). The same configuration in production refuses to start.
 */
describe('development without Redis: sessions in memory', () => {
  let server: RunningEntry;
  let api: AuthTarget;
  let db: Db;
  let env: Record<string, string>;

  beforeAll(async () => {
    const [port, closedPort] = await Promise.all([freePort(), freePort()]);
    const url = `http://127.0.0.1:${port}`;
    env = {
      ...integrationEnv(),
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      PORT: String(port),
      HOST: '127.0.0.1',
      API_PUBLIC_URL: url,
      AUTH_URL: url,
      TRUST_PROXY: 'true',
      CACHE_URL: `redis://127.0.0.1:${closedPort}`,
    };
    db = createDatabase({ connectionString: env.DATABASE_URL ?? '', max: 1 });
    server = startEntry('apps/api/src/server.ts', env);
    await server.waitForOutput(/Waymark API listening/, 90_000);
    api = { request: requestJson(url), config: { apiPublicUrl: url } };
  }, 120_000);

  afterAll(async () => {
    server?.kill('SIGTERM');
    await server?.exited;
    await db?.destroy();
  }, 30_000);

  it('warns once at boot, then signs in, reads the session, serves a cookie-authenticated admin GET and signs out', async () => {
    const warnings = server
      .output()
      .split('\n')
      .filter((line) => line.includes(FALLBACK_WARNING));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] ?? '{}')).toMatchObject({ level: 40 });

    const admin = await createTestAdmin({ deps: { db } }, 'memory');
    const browser = new SessionClient(api);
    const signedIn = await browser.signIn(admin.email, admin.password);
    expect(signedIn).toMatchObject({ status: 200, body: { user: { id: admin.id, email: admin.email } } });
    expect(browser.cookie).toBeDefined();

    const session = await browser.request('GET', '/api/auth/get-session');
    expect(session).toMatchObject({ status: 200, body: { user: { id: admin.id }, session: { id: signedIn.body.session.id } } });
    const journeys = await browser.request('GET', '/v1/admin/journeys');
    expect(journeys.status).toBe(200);
    expect(Array.isArray(journeys.body.journeys)).toBe(true);

    const cookie = browser.cookie;
    const out = await browser.request('POST', '/api/auth/sign-out');
    expect(out).toMatchObject({ status: 200, body: { ok: true } });
    expect(browser.cookie).toBeUndefined();
    const after = await api.request('GET', '/api/auth/get-session', { headers: { cookie: `waymark_session=${cookie}` } });
    expect(after.status).toBe(401);
  });

  it('keeps reset tokens in memory too: a reset link works once and revokes the session', async () => {
    const admin = await createTestAdmin({ deps: { db } }, 'memory-reset');
    const browser = new SessionClient(api);
    expect((await browser.signIn(admin.email, admin.password)).status).toBe(200);
    const requested = await new SessionClient(api).request('POST', '/api/auth/request-password-reset', { body: { email: admin.email } });
    expect(requested).toMatchObject({ status: 200, body: { ok: true } });
    const token = await resetTokenFor(admin.email);

    const reset = await api.request('POST', '/api/auth/reset-password', { body: { token, newPassword: 'a new memory password' } });
    expect(reset).toMatchObject({ status: 200, body: { ok: true } });
    expect((await browser.request('GET', '/api/auth/get-session')).status).toBe(401);
    const again = await api.request('POST', '/api/auth/reset-password', { body: { token, newPassword: 'another memory password' } });
    expect(again).toMatchObject({ status: 400, body: { code: 'INVALID_TOKEN' } });
    expect((await new SessionClient(api).signIn(admin.email, 'a new memory password')).status).toBe(200);
  });

  it('the same configuration in production refuses to start', async () => {
    // safe settings otherwise (production refuses unsafe ones first: docs/security.md)
    const result = await runEntry('apps/api/src/server.ts', {
      ...env,
      NODE_ENV: 'production',
      PORT: '0',
      TRUST_PROXY: '1',
      EMAIL_PROVIDER_WEBHOOK_SECRET: 'sns-password-of-the-subscription',
    });
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('Redis at CACHE_URL is unreachable; production needs it for sign-in sessions');
    expect(result.output).not.toContain('Waymark API listening');
  });
});
