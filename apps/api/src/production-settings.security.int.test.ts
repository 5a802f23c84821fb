import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runEntry } from '../../../test/run-entry';
import { integrationEnv } from '../../../test/test-env';
import { loadConfig } from '@waymark/core/config/config';
import { unsafeApiSettings } from './deps';
import { startTestApi } from '../../../test/test-api';

/**
 * Production refuses unsafe settings at start, every one in one message (docs/security.md,
 * "Production checklist"). The api is started as `npm start` starts it, with NODE_ENV=production
 * and otherwise good settings; the check runs before anything connects.
 */
describe('a production start with unsafe settings', () => {
  const production = {
    ...integrationEnv(),
    NODE_ENV: 'production',
    PORT: '0',
    AUTH_SECRET: 'b7c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3',
    EMAIL_PROVIDER_WEBHOOK_SECRET: 'sns-password-for-this-test',
  };

  it.each([
    ['the analytics source open', { ANALYTICS_WEBHOOK_OPEN: 'true' }, 'webhook source "analytics" is open'],
    ['the placeholder AUTH_SECRET of docker-compose.yml', { AUTH_SECRET: 'change-me-to-a-long-random-secret' }, 'AUTH_SECRET is a published placeholder'],
    ['TRUST_PROXY=true', { TRUST_PROXY: 'true' }, 'TRUST_PROXY=true trusts every X-Forwarded-For hop'],
    ['Temporal payloads in clear', { ENCRYPTION_KEYS: '' }, "ENCRYPTION_KEYS is unset, so Temporal's history"],
    ['a guessable ADMIN_API_KEY', { ADMIN_API_KEY: 'admin' }, 'ADMIN_API_KEY is shorter than 32 characters'],
    ['a guessable SNS subscription password', { EMAIL_PROVIDER_WEBHOOK_SECRET: 'sns' }, 'EMAIL_PROVIDER_WEBHOOK_SECRET is shorter than 16 characters'],
    ['TRUST_PROXY of every address', { TRUST_PROXY: '0.0.0.0/0' }, 'TRUST_PROXY=0.0.0.0/0 trusts every X-Forwarded-For hop'],
    ['links over plain http', { API_PUBLIC_URL: 'http://mail.example.com' }, 'API_PUBLIC_URL is http://mail.example.com'],
    [
      'a Temporal token in clear',
      { ORCHESTRATOR_CLIENT_TOKEN: 'token', TEMPORAL_TLS: 'false', TEMPORAL_ADDRESS: 'temporal.example.com:7233' },
      'ORCHESTRATOR_CLIENT_TOKEN would be sent in clear',
    ],
  ])('refuses %s alone (the check the api runs at start, over the sources of this deployment)', (_what, unsafe, named) => {
    expect(unsafeApiSettings(loadConfig(production))).toEqual([]);
    expect(unsafeApiSettings(loadConfig({ ...production, ...unsafe }))).toEqual([expect.stringContaining(named)]);
  });

  // one start of each process: a start here takes tens of seconds on a loaded machine
  it('exits non-zero listing every unsafe setting at once, in the api and in the worker', { timeout: 300_000 }, async () => {
    const all = {
      ...production,
      ANALYTICS_WEBHOOK_OPEN: 'true',
      AUTH_SECRET: 'short-but-16-chars',
      TRUST_PROXY: 'true',
      EMAIL_PROVIDER_WEBHOOK_SECRET: '',
      ENCRYPTION_KEYS: '',
    };
    const [api, worker] = await Promise.all([runEntry('apps/api/src/server.ts', all), runEntry('apps/worker/src/main.ts', all)]);
    expect(api.code).toBe(1);
    expect(api.output).toContain('waymark api: Unsafe settings for production');
    expect(api.output).not.toContain('Waymark API listening');
    for (const named of [
      '"analytics" is open',
      'AUTH_SECRET is shorter than 32 bytes',
      'TRUST_PROXY=true',
      'EMAIL_PROVIDER_WEBHOOK_SECRET is unset',
      'ENCRYPTION_KEYS is unset',
    ]) {
      expect(api.output).toContain(named);
    }
    // the worker serves no webhook source; it refuses the rest
    expect(worker.code).toBe(1);
    expect(worker.output).toContain('waymark worker: Unsafe settings for production');
    expect(worker.output).toContain('TRUST_PROXY=true');
    expect(worker.output).toContain('ENCRYPTION_KEYS is unset');
  });
});

describe('in development', () => {
  it('shows the same list on /v1/health as warnings', async () => {
    const api = await startTestApi({ NODE_ENV: 'development', TRUST_PROXY: 'true', ANALYTICS_WEBHOOK_OPEN: 'true' });
    try {
      const health = await api.request('GET', '/v1/health');
      expect(health.status).toBe(200);
      expect(health.body.warnings).toEqual([
        expect.stringContaining('"analytics" is open'),
        expect.stringContaining('TRUST_PROXY=true'),
        expect.stringContaining('EMAIL_PROVIDER_WEBHOOK_SECRET is unset'),
      ]);
      // and the analytics source, opened, takes a request with no secret
      expect((await api.request('POST', '/v1/webhooks/analytics', { body: { event: 'x', distinct_id: 'nobody' } })).status).not.toBe(401);
    } finally {
      await api.close();
    }
  });
});

/**
 * `docker compose config` needs Docker, which the test machines do not have: the file is read as
 * Compose reads it instead. AUTH_SECRET must come from the operator (`${AUTH_SECRET:?…}` fails
 * the start with the message when it is unset), never from a default published here.
 */
describe('docker-compose.yml', () => {
  it.each(['AUTH_SECRET', 'ENCRYPTION_KEYS'])('has no default %s: it requires one', async (name) => {
    const compose = parse(await readFile(new URL('../../../docker-compose.yml', import.meta.url), 'utf8')) as Record<string, Record<string, unknown>>;
    const value = String(compose['x-waymark-env']?.[name]);
    expect(value).toMatch(new RegExp(`^\\$\\{${name}:\\?[^}$]+\\}$`));
    expect(value).not.toContain(':-');
  });
});
