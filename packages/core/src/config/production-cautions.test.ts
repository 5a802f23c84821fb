import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';

const production = {
  NODE_ENV: 'production',
  AUTH_SECRET: 'a'.repeat(40),
  EMAIL_PROVIDER_API_KEY: 'k',
  DATABASE_URL: 'postgres://waymark:secret@db.internal:5432/waymark?sslmode=verify-full',
  CACHE_URL: 'rediss://cache.internal:6380',
};

/** docs/deploy.md, "Production checklist": what production logs at every start without refusing it. */
describe('production cautions (settingWarnings)', () => {
  it('names SES_ENDPOINT, a database or Redis reached without TLS, and private targets allowed', () => {
    const warnings = loadConfig({
      ...production,
      SES_ENDPOINT: 'http://ses:8005',
      DATABASE_URL: 'postgres://waymark:secret@db.internal:5432/waymark',
      CACHE_URL: 'redis://cache.internal:6379',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      ALERT_ALLOW_PRIVATE_TARGETS: 'true',
    }).settingWarnings;
    expect(warnings.map((warning) => warning.split(/[=: ]/)[0])).toEqual([
      'SES_ENDPOINT',
      'DATABASE_URL',
      'CACHE_URL',
      'WEBHOOK_ALLOW_PRIVATE_TARGETS',
      'ALERT_ALLOW_PRIVATE_TARGETS',
    ]);
    expect(warnings[1]).toContain('db.internal without sslmode=require');
  });

  it('says nothing of TLS, of this machine, or outside production', () => {
    expect(loadConfig(production).settingWarnings).toEqual([]);
    expect(
      loadConfig({ ...production, DATABASE_URL: 'postgres://waymark:waymark@127.0.0.1:5432/waymark', CACHE_URL: 'redis://localhost:6379' }).settingWarnings,
    ).toEqual([]);
    expect(
      loadConfig({ ...production, NODE_ENV: 'development', SES_ENDPOINT: 'http://127.0.0.1:8005', CACHE_URL: 'redis://cache.internal:6379' }).settingWarnings,
    ).toEqual([]);
  });

  it('names a public https address served with NODE_ENV left at development', () => {
    const { NODE_ENV: _production, ...unset } = production;
    expect(loadConfig({ ...unset, API_PUBLIC_URL: 'https://mail.example.com' }).settingWarnings).toEqual([
      expect.stringContaining('NODE_ENV is development while API_PUBLIC_URL is https://mail.example.com'),
    ]);
    expect(loadConfig({ ...unset, API_PUBLIC_URL: 'https://localhost:3002' }).settingWarnings).toEqual([]);
    expect(loadConfig({ ...unset, NODE_ENV: 'test', API_PUBLIC_URL: 'https://mail.example.com' }).settingWarnings).toEqual([]);
  });
});
