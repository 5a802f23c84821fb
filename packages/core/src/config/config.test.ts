import { describe, expect, it } from 'vitest';
import { ConfigError, loadCommandConfig, loadConfig, loadTracingConfig } from './config';

const required = {
  DATABASE_URL: 'postgres://localhost/waymark',
  AUTH_SECRET: 'a-secret-of-enough-length',
  EMAIL_PROVIDER_API_KEY: 'key',
};

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig(required);
    expect(config.port).toBe(3002);
    expect(config.nodeEnv).toBe('development');
    expect(config.logLevel).toBe('info');
    expect(config.apiPublicUrl).toBe('http://localhost:3002');
    expect(config.enabledJourneys).toBe('*');
    expect(config.temporal).toMatchObject({ address: '127.0.0.1:7233', namespace: 'default', taskQueue: 'waymark', tls: false });
    expect(config.rateLimit).toEqual({
      max: 100,
      windowMs: 60_000,
      sessionMax: 600,
      trackingMax: 6_000,
      webhookSourceMax: 3_000,
      webhookAddressMax: 3_000,
      healthMax: 600,
      emailProviderMax: 60_000,
    });
    expect(config.email).toMatchObject({ eventPublishing: false, unknownSettleMs: 15 * 60_000, snsDevCertificateUrl: undefined });
    expect(config.email.bounceThreshold).toBe(3);
    expect(config.defaultTimeZone).toBe('UTC');
  });

  it('names every missing required variable in one error', () => {
    try {
      loadConfig({});
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as ConfigError).message;
      for (const name of ['DATABASE_URL', 'AUTH_SECRET', 'EMAIL_PROVIDER_API_KEY']) expect(message).toContain(name);
      expect((error as ConfigError).problems).toHaveLength(3);
    }
  });

  it('rejects invalid values with the variable name', () => {
    expect(() => loadConfig({ ...required, PORT: 'abc', LOG_LEVEL: 'loud', NODE_ENV: 'staging' })).toThrow(/PORT[\s\S]*LOG_LEVEL|LOG_LEVEL[\s\S]*PORT/);
    expect(() => loadConfig({ ...required, API_PUBLIC_URL: 'not a url' })).toThrow(/API_PUBLIC_URL/);
    expect(() => loadConfig({ ...required, DEFAULT_TIMEZONE: 'Paris' })).toThrow(/DEFAULT_TIMEZONE.*IANA time zone/);
    expect(loadConfig({ ...required, DEFAULT_TIMEZONE: 'Australia/Sydney' }).defaultTimeZone).toBe('Australia/Sydney');
  });

  it('has one time-zone setting, and reads the older broadcast name, with a warning, only when it is unset', () => {
    expect(loadConfig(required)).toMatchObject({ defaultTimeZone: 'UTC', settingWarnings: [] });
    const old = loadConfig({ ...required, BROADCAST_DEFAULT_TIMEZONE: 'Europe/Paris' });
    expect(old.defaultTimeZone).toBe('Europe/Paris');
    expect(old.settingWarnings).toEqual([expect.stringMatching(/BROADCAST_DEFAULT_TIMEZONE is deprecated: rename it to DEFAULT_TIMEZONE=Europe\/Paris/)]);
    const both = loadConfig({ ...required, DEFAULT_TIMEZONE: 'Asia/Tokyo', BROADCAST_DEFAULT_TIMEZONE: 'Europe/Paris' });
    expect(both.defaultTimeZone).toBe('Asia/Tokyo');
    expect(both.settingWarnings).toEqual([expect.stringMatching(/BROADCAST_DEFAULT_TIMEZONE is ignored because DEFAULT_TIMEZONE is set/)]);
    expect(() => loadConfig({ ...required, BROADCAST_DEFAULT_TIMEZONE: 'Paris' })).toThrow(/BROADCAST_DEFAULT_TIMEZONE.*IANA time zone/);
    expect(loadCommandConfig({ DATABASE_URL: required.DATABASE_URL, BROADCAST_DEFAULT_TIMEZONE: 'Europe/Paris' }).defaultTimeZone).toBe('Europe/Paris');
  });

  it('treats empty optional variables as unset', () => {
    const config = loadConfig({ ...required, ADMIN_API_KEY: '', EMAIL_PROVIDER_WEBHOOK_SECRET: ' ' });
    expect(config.adminApiKey).toBeUndefined();
    expect(config.email.webhookSecret).toBeUndefined();
  });

  it('reads the send-rate budget: unset by default (SES decides), a positive rate, a share of at most 1', () => {
    expect(loadConfig(required).email.sendRate).toEqual({ maxPerSecond: undefined, workerShare: undefined });
    expect(loadConfig({ ...required, SES_MAX_SEND_RATE: '', SEND_RATE_WORKER_SHARE: ' ' }).email.sendRate).toEqual({
      maxPerSecond: undefined,
      workerShare: undefined,
    });
    expect(loadConfig({ ...required, SES_MAX_SEND_RATE: '50', SEND_RATE_WORKER_SHARE: '0.5' }).email.sendRate).toEqual({ maxPerSecond: 50, workerShare: 0.5 });
    expect(() => loadConfig({ ...required, SES_MAX_SEND_RATE: '0' })).toThrow(/SES_MAX_SEND_RATE/);
    expect(() => loadConfig({ ...required, SEND_RATE_WORKER_SHARE: '2' })).toThrow(/SEND_RATE_WORKER_SHARE/);
  });

  it('SES event publishing needs its configuration set; the dev SNS certificate is refused in production', () => {
    expect(() => loadConfig({ ...required, SES_EVENT_PUBLISHING: 'true' })).toThrow(/SES_EVENT_PUBLISHING needs SES_CONFIGURATION_SET/);
    expect(
      loadConfig({ ...required, SES_EVENT_PUBLISHING: 'true', SES_CONFIGURATION_SET: 'waymark', DELIVERY_UNKNOWN_SETTLE_MINUTES: '0.5' }).email,
    ).toMatchObject({
      eventPublishing: true,
      unknownSettleMs: 30_000,
    });
    const devCert = { EMAIL_PROVIDER_SNS_DEV_CERT_URL: 'http://127.0.0.1:8006/sns-dev-cert.pem' };
    expect(loadConfig({ ...required, ...devCert }).email.snsDevCertificateUrl).toBe(devCert.EMAIL_PROVIDER_SNS_DEV_CERT_URL);
    expect(() => loadConfig({ ...required, ...devCert, NODE_ENV: 'production' })).toThrow(/EMAIL_PROVIDER_SNS_DEV_CERT_URL is for development only/);
  });

  it('turns TLS on for a Temporal Cloud API key unless told otherwise', () => {
    expect(loadConfig({ ...required, ORCHESTRATOR_CLIENT_TOKEN: 'tok' }).temporal).toMatchObject({ apiKey: 'tok', tls: true });
    expect(loadConfig({ ...required, ORCHESTRATOR_CLIENT_TOKEN: 'tok', TEMPORAL_TLS: 'false' }).temporal.tls).toBe(false);
  });

  it('strips a trailing slash from API_PUBLIC_URL so generated links have one', () => {
    expect(loadConfig({ ...required, API_PUBLIC_URL: 'https://mail.example.com/' }).apiPublicUrl).toBe('https://mail.example.com');
  });

  it('collects every set *_WEBHOOK_SECRET for the webhook sources (not the SES password)', () => {
    const config = loadConfig({
      ...required,
      STRIPE_WEBHOOK_SECRET: ' whsec_a ',
      ACME_WEBHOOK_SECRET: 'team-secret',
      SEGMENT_WEBHOOK_SECRET: '',
      EMAIL_PROVIDER_WEBHOOK_SECRET: 'sns-password',
      lower_webhook_secret: 'ignored',
    });
    expect(config.webhookSources.secrets).toEqual({ STRIPE_WEBHOOK_SECRET: 'whsec_a', ACME_WEBHOOK_SECRET: 'team-secret' });
  });
});

describe('tracing settings', () => {
  it('is off unless OTEL_EXPORTER_OTLP_ENDPOINT is set, and OTEL_SDK_DISABLED turns it off again', () => {
    expect(loadConfig(required).tracing).toEqual({ enabled: false, endpoint: undefined });
    expect(loadConfig({ ...required, OTEL_EXPORTER_OTLP_ENDPOINT: '' }).tracing.enabled).toBe(false);
    const on = { ...required, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' };
    expect(loadConfig(on).tracing).toEqual({ enabled: true, endpoint: 'http://localhost:4318' });
    expect(loadConfig({ ...on, OTEL_SDK_DISABLED: 'true' }).tracing.enabled).toBe(false);
    expect(loadCommandConfig({ DATABASE_URL: required.DATABASE_URL, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' }).tracing.enabled).toBe(true);
    expect(loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' }).tracing.enabled).toBe(true);
    expect(loadTracingConfig({}).tracing.enabled).toBe(false);
  });
});

describe('loadCommandConfig', () => {
  it("needs only DATABASE_URL, with the server's defaults for the rest", () => {
    expect(loadCommandConfig({ DATABASE_URL: required.DATABASE_URL })).toEqual({
      authSecret: undefined,
      trustProxy: false,
      databaseUrl: required.DATABASE_URL,
      cacheUrl: 'redis://127.0.0.1:6379',
      enabledJourneys: '*',
      defaultTimeZone: 'UTC',
      settingWarnings: [],
      temporal: { address: '127.0.0.1:7233', namespace: 'default', apiKey: undefined, tls: false },
      tracing: { enabled: false, endpoint: undefined },
      // doctor: no SES key means the standard AWS credential chain
      deliverability: {
        emailFrom: 'Waymark <noreply@waymark.local>',
        apiPublicUrl: 'http://localhost:3002',
        isProduction: false,
        dnsResolver: undefined,
        ses: { region: 'us-east-1', endpoint: undefined, apiKey: 'aws' },
      },
    });
    // the doctor asks the DNS server named, and refuses a value that is not one
    expect(loadCommandConfig({ DATABASE_URL: required.DATABASE_URL, DNS_RESOLVER: '127.0.0.1:5353' }).deliverability.dnsResolver).toBe('127.0.0.1:5353');
    expect(loadCommandConfig({ DATABASE_URL: required.DATABASE_URL, DNS_RESOLVER: '[::1]:53' }).deliverability.dnsResolver).toBe('[::1]:53');
    expect(() => loadCommandConfig({ DATABASE_URL: required.DATABASE_URL, DNS_RESOLVER: 'udp://1.1.1.1' })).toThrow(/DNS_RESOLVER must be host or host:port/);
    // simulate runs people without a `timezone` on the server's clock
    expect(loadCommandConfig({ DATABASE_URL: required.DATABASE_URL, DEFAULT_TIMEZONE: 'Asia/Tokyo' }).defaultTimeZone).toBe('Asia/Tokyo');
    expect(() => loadCommandConfig({ DATABASE_URL: required.DATABASE_URL, DEFAULT_TIMEZONE: 'Tokyo' })).toThrow(/DEFAULT_TIMEZONE/);
    expect(loadCommandConfig({ DATABASE_URL: required.DATABASE_URL, ORCHESTRATOR_CLIENT_TOKEN: 'cloud-key' }).temporal).toMatchObject({
      apiKey: 'cloud-key',
      tls: true,
    });
    expect(loadCommandConfig({ DATABASE_URL: required.DATABASE_URL, CACHE_URL: 'redis://cache:6379/2', ENABLED_JOURNEYS: 'welcome-series' })).toMatchObject({
      cacheUrl: 'redis://cache:6379/2',
      enabledJourneys: 'welcome-series',
    });
  });

  it('names a missing DATABASE_URL', () => {
    expect(() => loadCommandConfig({})).toThrow(/DATABASE_URL is required/);
  });
});
