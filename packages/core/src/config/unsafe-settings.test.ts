import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig, settingsUnderCheck } from './config';
import { parseTrustProxy } from './trust-proxy';
import { unsafeSettings, unsafeSettingsMessage } from './unsafe-settings';

const safe = {
  authSecret: 'a'.repeat(64),
  trustProxy: false as const,
  emailWebhookSecret: 'sns-password-of-the-subscription',
  encryptionKeys: [{ id: 'k1', key: new Uint8Array(Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0', 'hex')) }],
  openSources: [],
};
const KEY = '0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0';
/** an environment the check finds nothing in */
const safeEnv = {
  DATABASE_URL: 'postgres://x',
  AUTH_SECRET: 'a'.repeat(40),
  EMAIL_PROVIDER_API_KEY: 'k',
  EMAIL_PROVIDER_WEBHOOK_SECRET: 'sns-password-of-the-subscription',
  ENCRYPTION_KEYS: `k1:${KEY}`,
};

describe('unsafeSettings', () => {
  it('finds nothing in a safe configuration', () => {
    expect(unsafeSettings(safe)).toEqual([]);
    expect(unsafeSettings({ ...safe, trustProxy: 1 })).toEqual([]);
    expect(unsafeSettings({ ...safe, trustProxy: ['10.0.0.0/8'] })).toEqual([]);
  });

  it('names each unsafe setting once: an open match source, a short or placeholder AUTH_SECRET, TRUST_PROXY=true, no SES webhook secret, no Temporal payload keys', () => {
    const problems = unsafeSettings({
      authSecret: 'change-me-to-a-long-random-secret',
      trustProxy: true,
      emailWebhookSecret: undefined,
      encryptionKeys: undefined,
      openSources: [{ id: 'analytics', secretVariable: 'ANALYTICS_WEBHOOK_SECRET' }],
    });
    expect(problems).toHaveLength(5);
    expect(problems[0]).toContain('webhook source "analytics" is open: ANALYTICS_WEBHOOK_SECRET is unset and ANALYTICS_WEBHOOK_OPEN=true');
    expect(problems[1]).toContain('AUTH_SECRET is a published placeholder');
    expect(problems[2]).toContain('TRUST_PROXY=true');
    expect(problems[3]).toContain('EMAIL_PROVIDER_WEBHOOK_SECRET is unset');
    expect(problems[4]).toContain("ENCRYPTION_KEYS is unset, so Temporal's history");
    expect(unsafeSettings({ ...safe, authSecret: 'sixteen-chars-ok-but-short' })).toEqual([expect.stringContaining('AUTH_SECRET is shorter than 32 bytes')]);
    expect(unsafeSettingsMessage(problems).split('\n')).toHaveLength(6);
  });

  it('refuses a guessable ADMIN_API_KEY or SNS password, TRUST_PROXY of every address, plain-http public URLs, the published SNS certificate and a Temporal token in clear', () => {
    const only = (extra: Partial<Parameters<typeof unsafeSettings>[0]>) => unsafeSettings({ ...safe, ...extra });
    expect(only({ adminApiKey: 'admin' })).toEqual([expect.stringContaining('ADMIN_API_KEY is shorter than 32 characters')]);
    expect(only({ adminApiKey: 'k'.repeat(32) })).toEqual([]);
    expect(only({ emailWebhookSecret: 'x' })).toEqual([expect.stringContaining('EMAIL_PROVIDER_WEBHOOK_SECRET is shorter than 16 characters')]);
    expect(only({ trustProxy: ['10.0.0.1', '0.0.0.0/0'] })).toEqual([
      expect.stringContaining('TRUST_PROXY=10.0.0.1,0.0.0.0/0 trusts every X-Forwarded-For hop'),
    ]);
    expect(only({ trustProxy: ['::/0'] })).toHaveLength(1);
    expect(only({ publicUrls: { API_PUBLIC_URL: 'http://mail.example.com', AUTH_URL: 'https://app.example.com' } })).toEqual([
      expect.stringContaining('API_PUBLIC_URL is http://mail.example.com'),
    ]);
    // this machine (a local trial, docker-compose.yml's default, a test) stays allowed
    expect(only({ publicUrls: { API_PUBLIC_URL: 'http://localhost:3002', AUTH_URL: 'http://127.0.0.1:3002' } })).toEqual([]);
    expect(only({ snsCertificatePem: readFileSync(new URL('../../../../test/fixtures/sns-test-cert.pem', import.meta.url), 'utf8') })).toEqual([
      expect.stringContaining("EMAIL_PROVIDER_SNS_CERTIFICATE is this repository's test certificate"),
    ]);
    expect(only({ snsCertificatePem: 'not a certificate' })).toEqual([]);
    const temporal = { address: 'temporal.internal:7233', tls: false, hasClientToken: true };
    expect(only({ temporal })).toEqual([expect.stringContaining('ORCHESTRATOR_CLIENT_TOKEN would be sent in clear to temporal.internal:7233')]);
    expect(only({ temporal: { ...temporal, tls: true } })).toEqual([]);
    expect(only({ temporal: { ...temporal, address: '127.0.0.1:7233' } })).toEqual([]);
    expect(only({ temporal: { ...temporal, hasClientToken: false } })).toEqual([]);
  });

  it('reads each of them from the configuration', () => {
    const env = safeEnv;
    expect(unsafeSettings(settingsUnderCheck(loadConfig(env), []))).toEqual([]);
    const problems = unsafeSettings(
      settingsUnderCheck(
        loadConfig({
          ...env,
          ADMIN_API_KEY: 'admin',
          AUTH_URL: 'http://app.example.com',
          TRUST_PROXY: '0.0.0.0/0',
          ORCHESTRATOR_CLIENT_TOKEN: 'token',
          TEMPORAL_TLS: 'false',
          TEMPORAL_ADDRESS: 'temporal.example.com:7233',
        }),
        [],
      ),
    );
    expect(problems.map((problem) => problem.split(' ')[0])).toEqual(['TRUST_PROXY=0.0.0.0/0', 'ADMIN_API_KEY', 'AUTH_URL', 'ORCHESTRATOR_CLIENT_TOKEN']);
  });

  it('refuses a key of one repeated byte, as the bench and chaos keys of this repository are', () => {
    const published = { id: 'test-1', key: new Uint8Array(Buffer.from('5e'.repeat(32), 'hex')) };
    expect(unsafeSettings({ ...safe, encryptionKeys: [...safe.encryptionKeys, published] })).toEqual([
      'ENCRYPTION_KEYS key "test-1" is one byte repeated, not a random key; set <id>:<openssl rand -hex 32>',
    ]);
  });

  it('skips what a process does not read (the CLI: no AUTH_SECRET given, no SES webhook, starts no run)', () => {
    expect(unsafeSettings({ ...safe, authSecret: undefined, emailWebhookSecret: null, encryptionKeys: null })).toEqual([]);
  });

  it('sees an analytics source opened by ANALYTICS_WEBHOOK_OPEN=true without its secret, and not one with its secret', () => {
    const env = safeEnv;
    const analytics = [{ id: 'analytics', auth: { type: 'match' as const, secret: 'ANALYTICS_WEBHOOK_SECRET' } }];
    expect(unsafeSettings(settingsUnderCheck(loadConfig(env), analytics))).toEqual([]);
    expect(unsafeSettings(settingsUnderCheck(loadConfig({ ...env, ANALYTICS_WEBHOOK_OPEN: 'true' }), analytics))).toEqual([
      expect.stringContaining('"analytics" is open'),
    ]);
    expect(unsafeSettings(settingsUnderCheck(loadConfig({ ...env, ANALYTICS_WEBHOOK_OPEN: 'true', ANALYTICS_WEBHOOK_SECRET: 'x' }), analytics))).toEqual([]);
  });
});

describe('ENCRYPTION_KEYS', () => {
  const env = { DATABASE_URL: 'x', AUTH_SECRET: 'a'.repeat(40), EMAIL_PROVIDER_API_KEY: 'k' };

  it('reads id:hex entries, newest first, and leaves the codec off when unset or empty', () => {
    const keys = loadConfig({ ...env, ENCRYPTION_KEYS: ` 2026-11:${KEY} , old.1:${'0f'.repeat(32)}` }).encryptionKeys;
    expect(keys?.map((key) => key.id)).toEqual(['2026-11', 'old.1']);
    expect(Buffer.from(keys?.[0]?.key ?? []).toString('hex')).toBe(KEY);
    expect(loadConfig({ ...env, ENCRYPTION_KEYS: '' }).encryptionKeys).toBeUndefined();
    expect(loadConfig(env).encryptionKeys).toBeUndefined();
  });

  it('refuses a malformed entry or a repeated id, naming the entry but never the key', () => {
    const short = `k1:${KEY},k2:abc`;
    expect(() => loadConfig({ ...env, ENCRYPTION_KEYS: short })).toThrow(/ENCRYPTION_KEYS must be <id>:<64 hex characters>.*entry 2 is not/);
    expect(() => loadConfig({ ...env, ENCRYPTION_KEYS: KEY })).toThrow(/entry 1 is not/);
    expect(() => loadConfig({ ...env, ENCRYPTION_KEYS: `k1:${KEY},k1:${KEY}` })).toThrow(/names the key id "k1" twice/);
    const refusal = (() => {
      try {
        loadConfig({ ...env, ENCRYPTION_KEYS: `k1:${KEY}x` });
        return 'accepted';
      } catch (error) {
        return String(error);
      }
    })();
    expect(refusal).toMatch(/entry 1 is not/);
    expect(refusal).not.toContain(KEY);
  });
});

describe('parseTrustProxy', () => {
  it('takes false, true, a hop count, or proxy addresses and CIDRs, as Fastify does', () => {
    expect(parseTrustProxy(undefined)).toEqual({ ok: true, value: false });
    expect(parseTrustProxy('false')).toEqual({ ok: true, value: false });
    expect(parseTrustProxy('0')).toEqual({ ok: true, value: false });
    expect(parseTrustProxy('true')).toEqual({ ok: true, value: true });
    expect(parseTrustProxy('2')).toEqual({ ok: true, value: 2 });
    expect(parseTrustProxy('10.0.0.1, 172.16.0.0/12,::1,fd00::/8,loopback')).toEqual({
      ok: true,
      value: ['10.0.0.1', '172.16.0.0/12', '::1', 'fd00::/8', 'loopback'],
    });
  });

  it('refuses anything else with the value named', () => {
    expect(parseTrustProxy('10.0.0.0/33')).toMatchObject({ ok: false, error: expect.stringContaining('10.0.0.0/33') });
    expect(parseTrustProxy('proxy.internal')).toMatchObject({ ok: false, error: expect.stringContaining('proxy.internal') });
    expect(() => loadConfig({ DATABASE_URL: 'x', AUTH_SECRET: 'a'.repeat(40), EMAIL_PROVIDER_API_KEY: 'k', TRUST_PROXY: 'maybe' })).toThrow(
      /TRUST_PROXY must be false/,
    );
  });
});
