import { sql } from 'kysely';
// a JSON import, not a file read: the compiled api (npm run build) carries the version inlined
import packageJson from '../../../package.json' with { type: 'json' };
import type { Redis } from 'ioredis';
import { Authenticator } from '@waymark/core/auth/authenticator';
import { createKeyRevocations, type KeyRevocations } from '@waymark/core/auth/key-revocations';
import { connectRedis, createRedis } from '@waymark/core/cache/redis';
import { settingsUnderCheck, type Config } from '@waymark/core/config/config';
import { unsafeSettings } from '@waymark/core/config/unsafe-settings';
import { createDatabase, type Db } from '@waymark/core/db/database';
import { createScopedTransactions, settleBefore, type ScopedTransactions } from '@waymark/core/db/scoped-transactions';
import { createPreparedStatementPool } from '@waymark/core/db/prepared-statements';
import type { IngestInput, IngestResult } from '@waymark/core/events/ingest';
import type { IngestFaults } from '@waymark/core/events/ingest-deps';
import type { JourneyRegistry } from '@waymark/core/journeys/registry';
import type { PreferenceCategories } from '@waymark/email/preference-categories';
import { createTemporalGateway, type TemporalGateway } from '@waymark/runtime/client';
import { createRuntime, type Runtime } from '@waymark/runtime/runtime';
import { registerWebhookDeliveryRetryHandler } from '@waymark/core/webhooks/outbound/webhook-delivery-retry';
import type { AppLogger } from '@waymark/core/logging/logger';
import { createAnalyticsDestination, type AnalyticsDestination } from '@waymark/core/tracking/analytics';
import { createTrackingEventPublisher, type TrackingEventPublisher } from '@waymark/core/tracking/tracking-events';
import { createTrackingRecorder, type TrackingRecorder } from '@waymark/core/tracking/tracking-recorder';
import { createSnsCertificateSource, type SnsCertificateSource } from '@waymark/email/sns-message';
import { createDeadLetterRetryHandlers, type DeadLetterRetryHandlers } from '@waymark/core/dlq/retry-handlers';
import { registerEmailRetryHandler } from '@waymark/core/emails/email-retry';
import { registerEventRetryHandlers } from '@waymark/core/events/event-retry';
import { registerJourneyRetryHandler } from '@waymark/core/journeys/journey-dead-letters';
import { sendEmail } from '@waymark/core/emails/send-email';
import { systemEmailSealKey } from '@waymark/core/emails/sealed-input';
import { createSystemEmails, type SystemEmails } from '@waymark/core/emails/system-emails';
import { createProcessMetrics, type ProcessMetrics } from '@waymark/core/metrics/prometheus';
import { createPersonPropertyCache, type PersonPropertyCache } from '@waymark/core/webhooks/sources/person-cache';
import { createSourceRegistry, type SourceRegistry } from '@waymark/core/webhooks/sources/source-registry';
import { builtInSources } from '@waymark/sources';
import { sources as ownSources } from '@waymark/journeys/sources/index';
import { MemorySessionAdapter } from '@waymark/core/auth/sessions/memory-session-adapter';
import { RedisSessionAdapter } from '@waymark/core/auth/sessions/redis-session-adapter';
import { memoryResetTokens, redisResetTokens } from '@waymark/core/auth/sessions/reset-token-store';
import { memorySignInFailures, redisSignInFailures, type SignInFailures } from '@waymark/core/users/sign-in-failures';
import { SessionManager } from '@waymark/core/auth/sessions/session-manager';
import { SessionPrincipals } from '@waymark/core/organizations/session-principals';
import type { InvitationDeps } from '@waymark/core/organizations/invitations';
import type { PasswordResetDeps } from '@waymark/core/users/password-reset';
import { createAlertMailer } from '@waymark/core/alerts/alert-mailer';
import { createReputationWatch, type ReputationDeps, type ReputationWatch } from '@waymark/core/webhooks/email-provider/reputation-watch';
import { breakerSettingsOf } from '@waymark/core/deliverability/breaker';
import type { DeliveryPolicy } from '@waymark/journey';

/** Everything the routes need, built once per process and passed down explicitly (no singletons). */
export interface AppDeps {
  config: Config;
  version: string;
  /** unsafe settings found at start (development only: production refuses them), shown on /v1/health */
  settingsWarnings: readonly string[];
  db: Db;
  /** units of work on `db`: an audited change and its audit row commit together (plugins/audit-trail.ts) */
  transactions: ScopedTransactions;
  redis: Redis;
  temporal: TemporalGateway;
  /** this deployment's journeys (journeys/index.ts) with ENABLED_JOURNEYS applied */
  journeys: JourneyRegistry;
  /** this deployment's preference categories (journeys/categories.ts) */
  categories: PreferenceCategories;
  /** the ingest pipeline; every route that accepts an event (tracking, webhooks, DLQ retry, imports) calls this */
  ingest(input: IngestInput): Promise<IngestResult>;
  authenticator: Authenticator;
  keyRevocations: KeyRevocations;
  /** send path (templates, SES transport, unsubscribe tokens, the send-rate budget): transactional sends, DLQ retries, pages */
  email: Runtime['email'];
  /** PostHog destination of tracking events (no-op without ANALYTICS_API_KEY/HOST) */
  analytics: AnalyticsDestination;
  /** click/open recording (group commit) and the fire-and-forget tracking event pushes */
  tracking: TrackingRecorder;
  trackingEvents: TrackingEventPublisher;
  /** SNS signing certificates for the email-provider webhook, cached per URL */
  snsCertificates: SnsCertificateSource;
  /** POST /v1/admin/dlq/{id}/retry: how each DLQ source is re-queued, registered by the module that owns it */
  deadLetterRetryHandlers: DeadLetterRetryHandlers;
  /** webhook sources (POST /v1/webhooks/{sourceId}): the presets plus journeys/sources, with their secrets */
  sources: SourceRegistry;
  /** per-person properties of sources that keep them (the analytics source), in Redis */
  personCache: PersonPropertyCache;
  /** Prometheus text of this instance (GET /v1/metrics) */
  processMetrics: ProcessMetrics;
  /** web sessions (lucia, stored in Redis; in memory for a development API that found no Redis at boot) and what a session's user may do on the admin plane */
  sessions: SessionManager;
  sessionPrincipals: SessionPrincipals;
  /** failed sign-ins per account (Redis, or memory beside in-memory sessions) */
  signInFailures: SignInFailures;
  passwordReset: PasswordResetDeps;
  /** reset and invitation emails as workflow runs; close waits for the starts in flight */
  systemEmails: SystemEmails;
  invitations: InvitationDeps;
  /** the reputation breaker's settings, log and alert delivery (docs/email.md, "Reputation breaker") */
  reputation: ReputationDeps;
  /** judges the breaker as SES's events arrive at the webhook */
  reputationWatch: ReputationWatch;
  pingDatabase(): Promise<void>;
  close(): Promise<void>;
}

export interface AppDepsOptions {
  /**
   * the clock of session, reset-token and invitation lifetimes and of the tracking sweep's grace
   * (tests move it to cross 7 days, 15 minutes or a minute)
   */
  now?: () => number;
  /** faults a test injects into the ingest pipeline (an api killed after an event's commit); none in a deployment */
  ingestFaults?: IngestFaults;
  /** the delivery policy in place of journeys/delivery-policy.ts (as the worker takes one) */
  deliveryPolicy?: DeliveryPolicy;
}

/** Every webhook source this deployment serves: the built-in presets and its own (journeys/sources). */
const webhookSources = [...builtInSources, ...ownSources];

/** The start-up check over this api's settings (docs/security.md, "Production checklist"). */
export function unsafeApiSettings(config: Config): string[] {
  return unsafeSettings(settingsUnderCheck(config, webhookSources));
}

export async function createAppDeps(config: Config, logger: AppLogger, options: AppDepsOptions = {}): Promise<AppDeps> {
  const onIdleClientError = (error: Error) => logger.warn({ err: error }, 'postgres: idle connection failed; the pool reconnects');
  // an audited change and its audit row commit together (plugins/audit-trail.ts)
  const transactions = createScopedTransactions();
  const db = createDatabase({
    connectionString: config.databaseUrl,
    applicationName: 'waymark-api',
    onIdleClientError,
    scoped: transactions,
    traceContext: config.tracing.enabled,
  });
  // clicks and opens: one batch of each in flight at a time (group commit), so two connections
  const trackingStatements = createPreparedStatementPool({
    connectionString: config.databaseUrl,
    max: 2,
    applicationName: 'waymark-api-tracking',
    onIdleClientError,
  });
  const redis = createRedis(config.cacheUrl, { connectionName: 'waymark-api' });
  const subscriber = createRedis(config.cacheUrl, { connectionName: 'waymark-api-sub' });
  // ioredis emits 'error' on every failed reconnect; without a listener Node would crash. Until
  // the boot has connected once (undefined), a failure is reported by the boot itself below.
  let redisDown: boolean | undefined = undefined;
  for (const client of [redis, subscriber]) {
    client.on('error', (error) => {
      if (redisDown === false) logger.warn({ err: error }, 'redis: connection error');
      redisDown = true;
    });
    client.on('ready', () => {
      if (redisDown === true) logger.info('redis: connected');
      redisDown = false;
    });
  }
  const [redisReady] = await Promise.all([connectRedis(redis), connectRedis(subscriber)]);
  if (!redisReady && config.isProduction) {
    // sessions, reset tokens and auth limits must be shared by every instance and survive restarts
    redis.disconnect();
    subscriber.disconnect();
    await Promise.allSettled([db.destroy(), trackingStatements.close()]);
    throw new Error(`Redis at CACHE_URL is unreachable; production needs it for sign-in sessions (docs/auth.md)`);
  }
  if (!redisReady)
    logger.warn(
      'Redis at CACHE_URL is unreachable: sessions, reset tokens and rate-limit counters are kept in memory ' +
        '(development only: lost on restart, not shared with other instances; restart the API once Redis is up)',
    );
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
  // workflow starts and provider sends may read what an audited change wrote: it commits first
  const gateway = createTemporalGateway(config.temporal, config.encryptionKeys, config.tracing);
  const temporal = { ...gateway, orchestrator: settleBefore(transactions, gateway.orchestrator), jobs: settleBefore(transactions, gateway.jobs) };
  const runtime = createRuntime(config, {
    db,
    logger,
    orchestrator: temporal.orchestrator,
    afterCommit: (work) => transactions.afterCommit(work),
    ...(options.ingestFaults === undefined ? {} : { ingestFaults: options.ingestFaults }),
    ...(options.deliveryPolicy === undefined ? {} : { deliveryPolicy: options.deliveryPolicy }),
  });
  const { journeys, categories, ingest, ingestBatch, effects } = runtime;
  const email = { ...runtime.email, transport: settleBefore(transactions, runtime.email.transport) };
  const analytics = createAnalyticsDestination(config.analytics, { onError: (error) => logger.warn({ err: error }, 'analytics: capture failed') });
  const snsCertificates = createSnsCertificateSource({ pinnedCertificatePem: config.email.snsCertificatePem });
  const trackingEvents = createTrackingEventPublisher({ db, ingest: ingestBatch, analytics, logger });
  const tracking = createTrackingRecorder({
    statements: trackingStatements,
    events: trackingEvents,
    machineClickWindowMs: config.email.machineClickWindowMs,
    logger,
    now: options.now,
  });
  // alert and import entries have no handler: a past alert is stale, an import is resubmitted
  const deadLetterRetryHandlers = createDeadLetterRetryHandlers();
  registerEmailRetryHandler(deadLetterRetryHandlers, { db, categories, templates: email.templates, sendEmail: (input) => sendEmail(email, input) });
  registerEventRetryHandlers(deadLetterRetryHandlers, { ingest });
  registerJourneyRetryHandler(deadLetterRetryHandlers, { db, orchestrator: temporal.orchestrator });
  const sources = createSourceRegistry(webhookSources, config.webhookSources.secrets, config.webhookSources.open);
  registerWebhookDeliveryRetryHandler(deadLetterRetryHandlers, db);
  // chosen once, at boot: a Redis that goes down later makes sign-in fail closed (503) rather than
  // splitting sessions between Redis and this process
  const authStores = redisReady
    ? { sessions: new RedisSessionAdapter({ redis, db }), resetTokens: redisResetTokens(redis), signInFailures: redisSignInFailures(redis) }
    : { sessions: new MemorySessionAdapter({ db }), resetTokens: memoryResetTokens(), signInFailures: memorySignInFailures() };
  const sessions = new SessionManager({ adapter: authStores.sessions, secureCookie: config.isProduction, now: options.now });
  // reset links and invitations are workflow runs of their own, their input sealed and kept in the
  // system-email outbox until started; with Temporal unreachable the worker's relay starts them
  // later (docs/email.md, "System emails")
  const systemEmails = createSystemEmails({
    db,
    sealKey: systemEmailSealKey(config.authSecret),
    start: gateway.systemEmails,
    logger,
  });
  const keepEmail = (tx: Db, input: Parameters<typeof sendEmail>[1]) => systemEmails.keep(tx, input);
  const passwordReset: PasswordResetDeps = {
    db,
    resetTokens: authStores.resetTokens,
    signInFailures: authStores.signInFailures,
    sessions,
    publicUrl: config.apiPublicUrl,
    keepEmail,
    now: options.now,
  };
  const invitations: InvitationDeps = { db, publicUrl: config.apiPublicUrl, keepEmail, now: options.now };
  const version = packageJson.version;
  const processMetrics = createProcessMetrics({ db, version, sendRate: email.sendRate });
  const reputation: ReputationDeps = {
    db,
    logger,
    settings: breakerSettingsOf(config, email.delivery.policy),
    states: email.breakerStates,
    jobs: temporal.jobs,
    alerts: {
      db,
      // operator notices are system emails, as the worker's alert evaluation sends them
      mailer: createAlertMailer((input) => systemEmails.send(input)),
      outbound: { timeoutMs: config.alerts.httpTimeoutMs, allowPrivateTargets: config.alerts.allowPrivateTargets },
      keys: config.encryptionKeys,
    },
  };
  return {
    config,
    version,
    // development only: production refuses to start on them, and tests hold the contract's exact health shape
    settingsWarnings: config.nodeEnv === 'development' ? unsafeApiSettings(config) : [],
    db,
    transactions,
    redis,
    temporal,
    journeys,
    categories,
    ingest,
    authenticator,
    keyRevocations,
    email,
    analytics,
    tracking,
    trackingEvents,
    snsCertificates,
    deadLetterRetryHandlers,
    sources,
    personCache: createPersonPropertyCache(
      redis,
      webhookSources.filter((source) => source.propertyCache).map((source) => source.id),
    ),
    processMetrics,
    sessions,
    sessionPrincipals: new SessionPrincipals({ db }),
    signInFailures: authStores.signInFailures,
    passwordReset,
    invitations,
    systemEmails,
    reputation,
    reputationWatch: createReputationWatch(reputation),
    async pingDatabase() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await keyRevocations.close();
      processMetrics.close();
      await tracking.close();
      await trackingEvents.drain();
      // after the last ingest: what is still queued goes to the worker's relay
      await effects.close();
      // a reset answered just before the close still starts its run
      await systemEmails.drain();
      await analytics.shutdown();
      redis.disconnect();
      await Promise.allSettled([db.destroy(), trackingStatements.close(), temporal.close(), email.sendRate.close()]);
    },
  };
}
