import { z } from 'zod';
import { isTimeZone } from '@waymark/journey';
import { parseEncryptionKeys } from './encryption-keys';
import { productionCautions } from './production-cautions';
import { parseTrustProxy } from './trust-proxy';
import type { MatchSourceSetting, SettingsUnderCheck } from './unsafe-settings';

/** Task queue used when TEMPORAL_TASK_QUEUE is not set; one constant, referenced everywhere. */
export const DEFAULT_TASK_QUEUE = 'waymark';

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value));

/** A positive number, or unset (an empty value, as .env.example leaves it, is unset too). */
const optionalPositive = (max = Number.POSITIVE_INFINITY) =>
  z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? undefined : value), z.coerce.number().positive().max(max).optional());

const boolFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((value) => (value === undefined ? fallback : ['true', '1', 'yes'].includes(value)));

const url = (fallback: string) => z.string().url().default(fallback);

/** A setting read by a parser of its own, whose refusal becomes the setting's config error. */
const parsedBy = <T>(parse: (value: string | undefined) => { ok: true; value: T } | { ok: false; error: string }) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      const parsed = parse(value);
      if (parsed.ok) return parsed.value;
      ctx.addIssue({ code: 'custom', message: parsed.error });
      return z.NEVER;
    });

const trustProxy = parsedBy(parseTrustProxy);
// Temporal's payload codec (docs/security.md, "What is kept secret, and where"): every process that
// starts, runs or replays a run needs the same keys, the CLI's journeys check included
const encryptionKeys = parsedBy(parseEncryptionKeys);

// the settings the CLI reads too (commandConfigSchema below)
const databaseUrl = z.string({ error: 'is required' }).min(1, 'is required');
const cacheUrl = z.string().default('redis://127.0.0.1:6379');
const enabledJourneys = z.string().default('*');
const bounceThreshold = z.coerce.number().int().positive().default(3);
// OpenTelemetry (docs/operations.md, "Tracing"): set, the process exports traces; the SDK reads the
// other standard OTEL_* variables (protocol details, headers, sampler, service name) itself
const otlpEndpoint = optionalString;
const otelSdkDisabled = boolFlag(false);
const tracing = (env: { OTEL_EXPORTER_OTLP_ENDPOINT: string | undefined; OTEL_SDK_DISABLED: boolean }) => ({
  enabled: env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined && !env.OTEL_SDK_DISABLED,
  endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
});
// what the deliverability doctor reads (the api's GET /v1/admin/deliverability and `waymark doctor`)
const nodeEnv = z.enum(['development', 'production', 'test']).default('development');
const emailFrom = z.string().default('Waymark <noreply@waymark.local>');
const apiPublicUrl = url('http://localhost:3002');
const sesRegion = z.string().default('us-east-1');
/** host, host:port or [v6]:port of the DNS server the doctor asks (unset: the system's resolvers) */
const dnsResolver = optionalString.refine((value) => value === undefined || /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(value), {
  error: 'must be host or host:port (IPv6: [addr]:port), e.g. 127.0.0.1:53',
});

/** The doctor's settings out of either schema's parsed environment. */
function doctorSettings(env: {
  NODE_ENV: 'development' | 'production' | 'test';
  EMAIL_FROM: string;
  API_PUBLIC_URL: string;
  SES_REGION: string;
  SES_ENDPOINT: string | undefined;
  EMAIL_PROVIDER_API_KEY: string;
  DNS_RESOLVER: string | undefined;
}) {
  return {
    emailFrom: env.EMAIL_FROM,
    apiPublicUrl: env.API_PUBLIC_URL.replace(/\/+$/, ''),
    isProduction: env.NODE_ENV === 'production',
    dnsResolver: env.DNS_RESOLVER,
    ses: { region: env.SES_REGION, endpoint: env.SES_ENDPOINT, apiKey: env.EMAIL_PROVIDER_API_KEY },
  };
}

const timeZoneName = z.string().refine(isTimeZone, { error: 'must be an IANA time zone name such as UTC or Europe/Paris' }).optional();

/**
 * The one time-zone setting: DEFAULT_TIMEZONE, the zone of every recipient without a `timezone`
 * property (journeys, caps, broadcasts' `localTime`). BROADCAST_DEFAULT_TIMEZONE, the older name
 * broadcasts read alone, still counts when DEFAULT_TIMEZONE is unset; `settingWarnings` names the
 * new setting so the processes log it at start-up.
 */
function timeZoneSetting(env: { DEFAULT_TIMEZONE?: string; BROADCAST_DEFAULT_TIMEZONE?: string }): { defaultTimeZone: string; settingWarnings: string[] } {
  const old = env.BROADCAST_DEFAULT_TIMEZONE;
  if (old === undefined) return { defaultTimeZone: env.DEFAULT_TIMEZONE ?? 'UTC', settingWarnings: [] };
  if (env.DEFAULT_TIMEZONE !== undefined)
    return {
      defaultTimeZone: env.DEFAULT_TIMEZONE,
      settingWarnings: ['BROADCAST_DEFAULT_TIMEZONE is ignored because DEFAULT_TIMEZONE is set (one zone for journeys and broadcasts); remove it'],
    };
  return {
    defaultTimeZone: old,
    settingWarnings: [`BROADCAST_DEFAULT_TIMEZONE is deprecated: rename it to DEFAULT_TIMEZONE=${old} (one zone for journeys and broadcasts)`],
  };
}

/** The time-zone setting with every warning the processes log at start (settingWarnings). */
function withCautions(zone: ReturnType<typeof timeZoneSetting>, cautions: string[]): ReturnType<typeof timeZoneSetting> {
  return { defaultTimeZone: zone.defaultTimeZone, settingWarnings: [...zone.settingWarnings, ...cautions] };
}

/**
 * The environment table of README.md: every setting the service reads, parsed once per process.
 * This schema is the only reader of process.env (docs/contributing.md, "One schema, one type"):
 * everything else takes a Config.
 */
export const configSchema = z
  // loose: the *_WEBHOOK_SECRET variables of a team's own webhook sources are not known here
  .looseObject({
    NODE_ENV: nodeEnv,
    PORT: z.coerce.number().int().min(0).max(65535).default(3002),
    HOST: z.string().default('0.0.0.0'),
    LOG_LEVEL: z.enum(['error', 'warn', 'info', 'http', 'debug']).default('info'),
    LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
    DATABASE_URL: databaseUrl,
    CACHE_URL: cacheUrl,
    AUTH_SECRET: z.string({ error: 'is required' }).min(16, 'must be at least 16 characters'),
    AUTH_URL: url('http://localhost:3002'),
    EMAIL_PROVIDER_API_KEY: z.string({ error: 'is required' }).min(1, 'is required'),
    EMAIL_FROM: emailFrom,
    EMAIL_PROVIDER_WEBHOOK_SECRET: optionalString,
    ORCHESTRATOR_CLIENT_TOKEN: optionalString,
    ANALYTICS_API_KEY: optionalString,
    ANALYTICS_HOST: optionalString,
    ANALYTICS_WEBHOOK_SECRET: optionalString,
    /** serves the `analytics` source with no secret (development only: production refuses it) */
    ANALYTICS_WEBHOOK_OPEN: boolFlag(false),
    // webhook sources (docs/sources.md); a team's own sources read any other *_WEBHOOK_SECRET
    STRIPE_WEBHOOK_SECRET: optionalString,
    CLERK_WEBHOOK_SECRET: optionalString,
    SUPABASE_WEBHOOK_SECRET: optionalString,
    SEGMENT_WEBHOOK_SECRET: optionalString,
    ADMIN_API_KEY: optionalString,
    API_PUBLIC_URL: apiPublicUrl,
    ENABLED_JOURNEYS: enabledJourneys,
    /** what ingest does with a catalogued event whose properties miss their schema (docs/journeys.md, "Catalog violations") */
    EVENT_CATALOG_MODE: z.enum(['quarantine', 'reject', 'off']).default('quarantine'),
    /** the recipient time zone of contacts without a `timezone` property (docs/journeys.md, "Timing and etiquette") */
    DEFAULT_TIMEZONE: timeZoneName,
    /** the older name of DEFAULT_TIMEZONE, read when it is unset (timeZoneSetting) */
    BROADCAST_DEFAULT_TIMEZONE: timeZoneName,
    STUDIO_ADMIN_EMAIL: optionalString,
    STUDIO_ADMIN_PASSWORD: optionalString,

    TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
    TEMPORAL_NAMESPACE: z.string().default('default'),
    TEMPORAL_TASK_QUEUE: z.string().default(DEFAULT_TASK_QUEUE),
    TEMPORAL_TLS: z.enum(['true', 'false']).optional(),
    /** what Waymark seals with (docs/security.md, "What is kept secret, and where"): every Temporal payload */
    ENCRYPTION_KEYS: encryptionKeys,
    /** where the studio links each journey run (the Temporal Web UI of this namespace) */
    TEMPORAL_UI_URL: url('http://localhost:8233'),
    /** a workflow bundle built ahead (npm run build:workflows): the worker starts without bundling */
    TEMPORAL_WORKFLOW_BUNDLE: optionalString,
    /** runs the worker keeps in memory between their tasks (docs/scaling.md, worker memory) */
    WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).default(500),
    /** how long a journey start that met a Temporal outage is retried before the DLQ (docs/operations.md) */
    JOURNEY_START_RETRY_HOURS: z.coerce.number().positive().default(24),

    SES_REGION: sesRegion,
    SES_ENDPOINT: optionalString,
    /** the DNS server the deliverability doctor reads SPF, DKIM and DMARC from (docs/email.md, "Deliverability") */
    DNS_RESOLVER: dnsResolver,
    SES_CONFIGURATION_SET: optionalString,
    /** the configuration set publishes Send, Delivery, Bounce, Complaint and Reject events to the webhook: unknown deliveries settle from them (docs/email.md, "Exactly once") */
    SES_EVENT_PUBLISHING: boolFlag(false),
    /** with event publishing, how long a send of unknown outcome waits for its event before it is sent again */
    DELIVERY_UNKNOWN_SETTLE_MINUTES: z.coerce.number().positive().default(15),
    EMAIL_PROVIDER_SNS_CERTIFICATE: optionalString,
    /** the SNS topics whose notifications the SES webhook accepts, space- or comma-separated (docs/email.md) */
    SES_SNS_TOPIC_ARNS: optionalString,
    /** development only (refused in production): the local stack's SNS signing certificate URL (scripts/ses-events), trusted besides Amazon's */
    EMAIL_PROVIDER_SNS_DEV_CERT_URL: optionalString,
    /** the installation's send budget per second; overrides SES's MaxSendRate (docs/email.md, "Send rate") */
    SES_MAX_SEND_RATE: optionalPositive(),
    /** a process's share of the budget while Redis is unreachable (default: 1 / the processes last seen sharing it) */
    SEND_RATE_WORKER_SHARE: optionalPositive(1),
    /** a click this soon after the provider accepted the send, in a burst over the email's links, is a scanner's (docs/email.md) */
    MACHINE_CLICK_WINDOW_MS: z.coerce.number().int().min(0).default(2_000),

    RATE_LIMIT_MAX: z.coerce.number().int().positive().default(100),
    RATE_LIMIT_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
    /** per signed-in person (docs/operations.md, Rate limits), in the same window */
    SESSION_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(600),
    /** tracking hits per address recorded in a window; past it they are answered, not recorded */
    TRACKING_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(6_000),
    /** verified deliveries per webhook source id in a window */
    WEBHOOK_SOURCE_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(3_000),
    /** requests per address to /v1/webhooks/{sourceId} in a window, counted before verification */
    WEBHOOK_ADDRESS_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(3_000),
    /** /v1/health requests per address in a window (each pings PostgreSQL, Redis and Temporal) */
    HEALTH_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(600),
    /** verified SES notifications per SNS topic in a window; past it 503 (SNS retries), never 429 (docs/email.md, "Provider webhooks") */
    EMAIL_PROVIDER_WEBHOOK_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(60_000),
    BOUNCE_THRESHOLD: bounceThreshold,
    /** the reputation breaker's rolling window of bounce and complaint rates (docs/email.md, "Reputation breaker") */
    REPUTATION_WINDOW_HOURS: z.coerce.number().int().positive().default(24),
    /** sends a group and mailbox provider need in the window before the breaker judges their rates */
    REPUTATION_MIN_SENDS: z.coerce.number().int().positive().default(500),
    /** hours the rates must stay under the slow thresholds before a tripped breaker resumes by itself */
    REPUTATION_COOLDOWN_HOURS: z.coerce.number().positive().default(6),
    /** how often a journey email held by the breaker looks again */
    REPUTATION_RECHECK_SECONDS: z.coerce.number().int().positive().default(300),
    /** false, a hop count, or proxy addresses/CIDRs (`true`, every hop, is refused in production) */
    TRUST_PROXY: trustProxy,

    /** the statement_timeout of segment previews and counts (docs/segments.md, Limits) */
    SEGMENT_QUERY_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
    /** segment queries one key or person may run at once */
    SEGMENT_QUERY_CONCURRENCY: z.coerce.number().int().positive().default(2),

    IMPORT_MAX_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(16 * 1024 * 1024),
    IMPORT_MAX_ROWS: z.coerce.number().int().positive().default(100_000),
    IMPORT_CHUNK_SIZE: z.coerce.number().int().min(1).max(10_000).default(1_000),
    ALERT_HTTP_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
    ALERT_ALLOW_PRIVATE_TARGETS: boolFlag(false),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: boolFlag(false),
    WEBHOOK_RETRY_INITIAL_INTERVAL_MS: z.coerce.number().int().positive().default(30_000),
    WEBHOOK_RETRY_MAX_INTERVAL_MS: z.coerce.number().int().positive().default(3_600_000),
    WEBHOOK_RETRY_WINDOW_MS: z.coerce.number().int().positive().default(86_400_000),
    /** an endpoint whose every attempt failed this long is disabled (docs/webhooks.md); fractions allowed */
    WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS: z.coerce.number().positive().default(72),
    /** an attempt that has no connection by then fails, apart from the 5 s the receiver has to answer */
    WEBHOOK_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(2_000),
    /** delivery slots of one worker process: attempts in flight at once, all endpoints together */
    WEBHOOK_DELIVERY_CONCURRENCY: z.coerce.number().int().positive().default(50),
    /** attempts in flight at once to one endpoint, across every worker (a failing endpoint gets one) */
    WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().positive().default(4),
    /** days a finished outbound event and its deliveries are kept as delivery history (docs/webhooks.md); 0 keeps them for ever */
    WEBHOOK_HISTORY_DAYS: z.coerce.number().int().min(0).default(30),
    OUTBOUND_DISPATCH: boolFlag(true),
    OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint,
    OTEL_SDK_DISABLED: otelSdkDisabled,
  })
  .superRefine((env, ctx) => {
    if (env.EMAIL_PROVIDER_SNS_DEV_CERT_URL !== undefined && env.NODE_ENV === 'production')
      ctx.addIssue({ code: 'custom', path: ['EMAIL_PROVIDER_SNS_DEV_CERT_URL'], message: 'is for development only: unset it in production' });
    if (env.SES_EVENT_PUBLISHING && env.SES_CONFIGURATION_SET === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['SES_EVENT_PUBLISHING'],
        message: 'needs SES_CONFIGURATION_SET (the configuration set that publishes the events)',
      });
  })
  .transform((env) => ({
    nodeEnv: env.NODE_ENV,
    isProduction: env.NODE_ENV === 'production',
    port: env.PORT,
    host: env.HOST,
    logLevel: env.LOG_LEVEL,
    // JSON for log shippers; pretty lines for people. Default: pretty only on a terminal outside production.
    logFormat: env.LOG_FORMAT ?? (process.stdout.isTTY === true && env.NODE_ENV !== 'production' ? 'pretty' : 'json'),
    databaseUrl: env.DATABASE_URL,
    cacheUrl: env.CACHE_URL,
    authSecret: env.AUTH_SECRET,
    authUrl: env.AUTH_URL,
    encryptionKeys: env.ENCRYPTION_KEYS,
    email: {
      providerApiKey: env.EMAIL_PROVIDER_API_KEY,
      from: env.EMAIL_FROM,
      webhookSecret: env.EMAIL_PROVIDER_WEBHOOK_SECRET,
      sesRegion: env.SES_REGION,
      sesEndpoint: env.SES_ENDPOINT,
      sesConfigurationSet: env.SES_CONFIGURATION_SET,
      bounceThreshold: env.BOUNCE_THRESHOLD,
      // PEM that pins the SNS signing certificate instead of downloading it (docs/email.md)
      snsCertificatePem: env.EMAIL_PROVIDER_SNS_CERTIFICATE?.replace(/\\n/g, '\n'),
      snsTopicArns: env.SES_SNS_TOPIC_ARNS?.split(/[\s,]+/).filter((arn) => arn !== ''),
      snsDevCertificateUrl: env.EMAIL_PROVIDER_SNS_DEV_CERT_URL,
      // unknown deliveries settle from the configuration set's events, else by the delivery policy
      eventPublishing: env.SES_EVENT_PUBLISHING,
      unknownSettleMs: env.DELIVERY_UNKNOWN_SETTLE_MINUTES * 60_000,
      machineClickWindowMs: env.MACHINE_CLICK_WINDOW_MS,
      reputation: {
        windowHours: env.REPUTATION_WINDOW_HOURS,
        minSends: env.REPUTATION_MIN_SENDS,
        cooldownMs: env.REPUTATION_COOLDOWN_HOURS * 3_600_000,
        recheckMs: env.REPUTATION_RECHECK_SECONDS * 1_000,
      },
      sendRate: { maxPerSecond: env.SES_MAX_SEND_RATE, workerShare: env.SEND_RATE_WORKER_SHARE },
    },
    analytics: {
      apiKey: env.ANALYTICS_API_KEY,
      host: env.ANALYTICS_HOST,
      webhookSecret: env.ANALYTICS_WEBHOOK_SECRET,
    },
    temporal: {
      address: env.TEMPORAL_ADDRESS,
      namespace: env.TEMPORAL_NAMESPACE,
      taskQueue: env.TEMPORAL_TASK_QUEUE,
      apiKey: env.ORCHESTRATOR_CLIENT_TOKEN,
      // Temporal Cloud API keys only work over TLS, so a token turns TLS on unless told otherwise.
      tls: env.TEMPORAL_TLS === undefined ? env.ORCHESTRATOR_CLIENT_TOKEN !== undefined : env.TEMPORAL_TLS === 'true',
      uiUrl: env.TEMPORAL_UI_URL.replace(/\/+$/, ''),
      workflowBundle: env.TEMPORAL_WORKFLOW_BUNDLE,
      maxCachedWorkflows: env.WORKER_MAX_CACHED_WORKFLOWS,
      // starts kept while Temporal was unreachable are retried by the worker's relay this long, then parked
      journeyStartRetryHours: env.JOURNEY_START_RETRY_HOURS,
    },
    adminApiKey: env.ADMIN_API_KEY,
    apiPublicUrl: env.API_PUBLIC_URL.replace(/\/+$/, ''),
    enabledJourneys: env.ENABLED_JOURNEYS,
    eventCatalogMode: env.EVENT_CATALOG_MODE,
    ...withCautions(timeZoneSetting(env), productionCautions(env)),
    studioAdmin: { email: env.STUDIO_ADMIN_EMAIL, password: env.STUDIO_ADMIN_PASSWORD },
    rateLimit: {
      max: env.RATE_LIMIT_MAX,
      windowMs: env.RATE_LIMIT_WINDOW_MS,
      sessionMax: env.SESSION_RATE_LIMIT_MAX,
      trackingMax: env.TRACKING_RATE_LIMIT_MAX,
      webhookSourceMax: env.WEBHOOK_SOURCE_RATE_LIMIT_MAX,
      webhookAddressMax: env.WEBHOOK_ADDRESS_RATE_LIMIT_MAX,
      healthMax: env.HEALTH_RATE_LIMIT_MAX,
      emailProviderMax: env.EMAIL_PROVIDER_WEBHOOK_RATE_LIMIT_MAX,
    },
    trustProxy: env.TRUST_PROXY,
    segments: { queryTimeoutMs: env.SEGMENT_QUERY_TIMEOUT_MS, queryConcurrency: env.SEGMENT_QUERY_CONCURRENCY },
    imports: { maxBytes: env.IMPORT_MAX_BYTES, maxRows: env.IMPORT_MAX_ROWS, chunkSize: env.IMPORT_CHUNK_SIZE },
    alerts: { httpTimeoutMs: env.ALERT_HTTP_TIMEOUT_MS, allowPrivateTargets: env.ALERT_ALLOW_PRIVATE_TARGETS },
    // outbound webhooks (docs/webhooks.md): exponential retries from the initial interval, doubling
    // up to the maximum, for the window; an endpoint failing for a whole window is disabled
    webhooks: {
      allowPrivateTargets: env.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      retryInitialIntervalMs: env.WEBHOOK_RETRY_INITIAL_INTERVAL_MS,
      retryMaxIntervalMs: env.WEBHOOK_RETRY_MAX_INTERVAL_MS,
      retryWindowMs: env.WEBHOOK_RETRY_WINDOW_MS,
      disableAfterMs: Math.round(env.WEBHOOK_ENDPOINT_DISABLE_AFTER_HOURS * 3_600_000),
      connectTimeoutMs: env.WEBHOOK_CONNECT_TIMEOUT_MS,
      concurrency: env.WEBHOOK_DELIVERY_CONCURRENCY,
      endpointConcurrency: env.WEBHOOK_ENDPOINT_CONCURRENCY,
      historyDays: env.WEBHOOK_HISTORY_DAYS,
      // the worker fans new outbox rows out and works the delivery queue with its own slots; a
      // worker that should not deliver (a one-off, a queue of its own) turns it off
      dispatch: env.OUTBOUND_DISPATCH,
    },
    webhookSources: { secrets: webhookSourceSecrets(env), open: openSourceVariables(env) },
    tracing: tracing(env),
    deliverability: doctorSettings(env),
  }));

const WEBHOOK_SOURCE_SECRET = /^[A-Z][A-Z0-9_]*_WEBHOOK_SECRET$/;

/**
 * Every set `*_WEBHOOK_SECRET` variable by name: a webhook source names the variable holding its
 * secret (docs/sources.md). The SES webhook password is not a source secret.
 */
function webhookSourceSecrets(env: Record<string, unknown>): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name === 'EMAIL_PROVIDER_WEBHOOK_SECRET' || !WEBHOOK_SOURCE_SECRET.test(name)) continue;
    if (typeof value === 'string' && value.trim() !== '') secrets[name] = value.trim();
  }
  return secrets;
}

const WEBHOOK_SOURCE_OPEN = /^[A-Z][A-Z0-9_]*_WEBHOOK_OPEN$/;

/**
 * The secret variables whose `*_WEBHOOK_OPEN` is true: a `match` source whose secret is unset
 * serves requests only when its open variable says so (docs/sources.md), and refuses them otherwise.
 */
function openSourceVariables(env: Record<string, unknown>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => WEBHOOK_SOURCE_OPEN.test(name) && isTrue(value))
    .map(([name]) => name.replace(/_OPEN$/, '_SECRET'));
}

/** ANALYTICS_WEBHOOK_OPEN arrives parsed (a boolean); a team's own `*_WEBHOOK_OPEN` as the text set. */
function isTrue(value: unknown): boolean {
  return value === true || (typeof value === 'string' && ['true', '1', 'yes'].includes(value.trim().toLowerCase()));
}

/** A webhook source as the start-up check needs it (the sources themselves live above config). */
interface SourceAuthShape {
  id: string;
  auth: { type: 'match' | 'signature'; secret: string };
}

/** `match` sources with no secret that are served anyway (their `*_WEBHOOK_OPEN=true`). */
export function openMatchSources(
  sources: readonly SourceAuthShape[],
  webhookSources: { secrets: Readonly<Record<string, string>>; open: readonly string[] },
): MatchSourceSetting[] {
  return sources
    .filter(
      (source) => source.auth.type === 'match' && webhookSources.secrets[source.auth.secret] === undefined && webhookSources.open.includes(source.auth.secret),
    )
    .map((source) => ({ id: source.id, secretVariable: source.auth.secret }));
}

/** What the start-up check (`unsafeSettings`) reads of a server process's configuration. */
export function settingsUnderCheck(config: Config, sources: readonly SourceAuthShape[]): SettingsUnderCheck {
  return {
    authSecret: config.authSecret,
    trustProxy: config.trustProxy,
    emailWebhookSecret: config.email.webhookSecret,
    encryptionKeys: config.encryptionKeys,
    openSources: openMatchSources(sources, config.webhookSources),
    adminApiKey: config.adminApiKey,
    publicUrls: { API_PUBLIC_URL: config.apiPublicUrl, AUTH_URL: config.authUrl },
    snsCertificatePem: config.email.snsCertificatePem,
    temporal: { address: config.temporal.address, tls: config.temporal.tls, hasClientToken: config.temporal.apiKey !== undefined },
  };
}

export type Config = z.infer<typeof configSchema>;
/** What the deliverability doctor reads: the sender, the public URL, the SES account and the DNS resolver. */
export type DoctorSettings = Config['deliverability'];
export type ConfigInput = z.input<typeof configSchema>;

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Parses the environment once; throws a ConfigError listing every problem at the same time. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  return parseEnvironment(configSchema, env);
}

/**
 * What the CLI reads: its commands work on the database (`admin` also revokes sessions in Redis,
 * `explain` applies ENABLED_JOURNEYS), so only DATABASE_URL is demanded, and a machine without the
 * server's secrets can still migrate or create a key.
 */
const commandConfigSchema = z
  .looseObject({
    DATABASE_URL: databaseUrl,
    CACHE_URL: cacheUrl,
    ENABLED_JOURNEYS: enabledJourneys,
    // `simulate` runs each person without a `timezone` on this clock
    DEFAULT_TIMEZONE: timeZoneName,
    BROADCAST_DEFAULT_TIMEZONE: timeZoneName,
    // `journeys check` reads running histories from Temporal
    TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
    TEMPORAL_NAMESPACE: z.string().default('default'),
    TEMPORAL_TLS: z.enum(['true', 'false']).optional(),
    ENCRYPTION_KEYS: encryptionKeys,
    ORCHESTRATOR_CLIENT_TOKEN: optionalString,
    // read only for the start-up check (unsafeSettings), which the CLI prints as warnings
    AUTH_SECRET: optionalString,
    TRUST_PROXY: trustProxy,
    OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint,
    OTEL_SDK_DISABLED: otelSdkDisabled,
    // `doctor` checks the sending domain, the SES account and what Waymark sends
    NODE_ENV: nodeEnv,
    EMAIL_FROM: emailFrom,
    API_PUBLIC_URL: apiPublicUrl,
    SES_REGION: sesRegion,
    SES_ENDPOINT: optionalString,
    // unset: the standard AWS credential chain (see sesCredentials), which a machine without the server's secrets uses
    EMAIL_PROVIDER_API_KEY: z.string().default('aws'),
    DNS_RESOLVER: dnsResolver,
  })
  .transform((env) => ({
    authSecret: env.AUTH_SECRET,
    trustProxy: env.TRUST_PROXY,
    databaseUrl: env.DATABASE_URL,
    cacheUrl: env.CACHE_URL,
    enabledJourneys: env.ENABLED_JOURNEYS,
    ...timeZoneSetting(env),
    temporal: {
      address: env.TEMPORAL_ADDRESS,
      namespace: env.TEMPORAL_NAMESPACE,
      apiKey: env.ORCHESTRATOR_CLIENT_TOKEN,
      tls: env.TEMPORAL_TLS === undefined ? env.ORCHESTRATOR_CLIENT_TOKEN !== undefined : env.TEMPORAL_TLS === 'true',
    },
    // `journeys check` opens the histories it reads with them
    encryptionKeys: env.ENCRYPTION_KEYS,
    tracing: tracing(env),
    deliverability: doctorSettings(env),
  }));

export type CommandConfig = z.infer<typeof commandConfigSchema>;

export function loadCommandConfig(env: Record<string, string | undefined> = process.env): CommandConfig {
  return parseEnvironment(commandConfigSchema, env);
}

/** Tracing alone (docs/operations.md, "Tracing"): the CLI reads it before any command, whatever else that command needs. */
const tracingConfigSchema = z
  .looseObject({ OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint, OTEL_SDK_DISABLED: otelSdkDisabled })
  .transform((env) => ({ tracing: tracing(env) }));

export function loadTracingConfig(env: Record<string, string | undefined> = process.env): Pick<Config, 'tracing'> {
  return parseEnvironment(tracingConfigSchema, env);
}

function parseEnvironment<T>(schema: z.ZodType<T>, env: Record<string, string | undefined>): T {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || '(environment)';
    return `${name} ${issue.message}`;
  });
  throw new ConfigError(problems);
}
