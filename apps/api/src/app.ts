import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import { createHash } from 'node:crypto';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { readBearerToken } from '@waymark/core/auth/api-key-secret';
import { AppError, badRequest } from '@waymark/core/errors/app-error';
import type { AppLogger } from '@waymark/core/logging/logger';
import type { AppDeps } from './deps';
import { MAX_BODY_DEPTH, nestsDeeperThan } from './http/json-depth';
import { auditTrail } from './plugins/audit-trail';
import { bearerAuth } from './plugins/bearer-auth';
import { registerErrorHandler, sendFrameworkError } from './plugins/error-handler';
import { registerOpenApi } from './plugins/openapi';
import { createSlidingWindowStore } from './plugins/rate-limit-store';
import { registerStudio } from './plugins/studio';
import { apiKeyRoutes } from './routes/api-keys';
import { adminEventRoutes } from './routes/admin-events';
import { auditLogRoutes } from './routes/audit-logs';
import { benchBaselineRoutes, eventRoutes } from './routes/events';
import { healthRoutes } from './routes/health';
import { alertRoutes } from './routes/alerts';
import { contactRoutes } from './routes/contacts';
import { contactBulkRoutes } from './routes/contacts-bulk';
import { contactTimelineRoutes } from './routes/contact-timeline';
import { dataContactRoutes } from './routes/data-contacts';
import { dataEmailRoutes } from './routes/data-emails';
import { dataListRoutes } from './routes/data-lists';
import { dlqRoutes } from './routes/dlq';
import { metricsRoutes } from './routes/metrics';
import { journeyRoutes } from './routes/journeys';
import { adminEmailRoutes } from './routes/admin-emails';
import { contactPreferenceRoutes } from './routes/contact-preferences';
import { emailPageRoutes } from './routes/email-pages';
import { emailProviderWebhookRoutes } from './routes/email-provider-webhook';
import { suppressionRoutes } from './routes/suppressions';
import { templateRoutes } from './routes/templates';
import { insightRoutes } from './routes/insights';
import { studioStatusRoutes } from './routes/studio-status';
import { trackingBenchBaselineRoutes, trackingRoutes } from './routes/tracking';
import { authRateLimits } from './routes/auth-options';
import { authOrganizationRoutes } from './routes/auth-organizations';
import { authPasswordRoutes } from './routes/auth-passwords';
import { authSessionRoutes } from './routes/auth-sessions';
import { allowedOrigins } from './http/same-origin';
import { readSessionCookie } from './http/session-cookie';

/** Issue 4: email delivery (admin emails, contact preferences, suppression import). */
const emailAdminRoutes = [adminEmailRoutes, contactPreferenceRoutes, suppressionRoutes];
/** Issue 13: what the studio needs beyond the admin plane (templates, overview series, funnels). */
const studioAdminRoutes = [templateRoutes, insightRoutes];

/** Issue 5: contacts, bulk operations, alerts, DLQ, metrics, and the contacts/emails/lists data plane. */
const adminPlaneRoutes = [
  contactRoutes,
  contactTimelineRoutes,
  contactBulkRoutes,
  alertRoutes,
  dlqRoutes,
  metricsRoutes,
  dataContactRoutes,
  dataEmailRoutes,
  dataListRoutes,
];

/** Issue 12: people signing in under /api/auth/* (sessions, passwords, organizations). */
const authRoutes = [authSessionRoutes, authPasswordRoutes, authOrganizationRoutes];

/** Routes that need no credential (health, tracking, public pages, webhooks). */
const publicRoutes = [healthRoutes, trackingRoutes, emailPageRoutes, emailProviderWebhookRoutes, studioStatusRoutes];
/** Routes behind bearer keys; each declares its scope (admin plane and data plane). */
const bearerRoutes = [
  apiKeyRoutes,
  auditLogRoutes,
  eventRoutes,
  journeyRoutes,
  adminEventRoutes,
  ...adminPlaneRoutes,
  ...emailAdminRoutes,
  ...studioAdminRoutes,
];

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export interface BuildAppOptions {
  deps: AppDeps;
  logger: AppLogger;
}

/** The Fastify app as a value: server.ts listens on it, tests drive it with inject or HTTP. */
export async function buildApp({ deps, logger }: BuildAppOptions): Promise<FastifyInstance> {
  const { config } = deps;
  const baseLogger: FastifyBaseLogger = logger;
  const app = Fastify({
    loggerInstance: baseLogger,
    // one readable line per request comes from the onResponse hook below, at the `http` level
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: config.trustProxy,
    bodyLimit: 5 * 1024 * 1024,
    // a contact `{id}` may be an externalId of up to 512 characters (the create body allows that)
    routerOptions: { maxParamLength: 512 },
    frameworkErrors: sendFrameworkError,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // SPEC §4 order: secure headers, CORS, compression, request id, request logging, error handler.
  await app.register(helmet, { global: true });
  await app.register(cors, { origin: true });
  await app.register(compress, { global: true, threshold: 1024 });
  await app.register(cookie);
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-request-id', request.id);
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    logger.http(
      { reqId: request.id, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      `${request.method} ${request.url.split('?')[0]} ${reply.statusCode}`,
    );
  });
  registerErrorHandler(app, { production: config.isProduction });
  app.addHook('preValidation', async (request) => {
    if (nestsDeeperThan(request.body, MAX_BODY_DEPTH)) throw badRequest(`Invalid request: body nests deeper than ${MAX_BODY_DEPTH} levels`);
  });

  // SPEC §8: sliding window per API key (per client IP without one), shared through Redis.
  await app.register(rateLimit, {
    global: true,
    max: config.rateLimit.max,
    timeWindow: config.rateLimit.windowMs,
    store: createSlidingWindowStore({ redis: deps.redis, logger }),
    keyGenerator: (request) => {
      const token = readBearerToken(request.headers.authorization);
      if (token !== undefined) return `key:${createHash('sha256').update(token).digest('hex').slice(0, 32)}`;
      // a session is limited like a key (docs/auth.md)
      const session = request.headers.authorization === undefined ? readSessionCookie(request) : undefined;
      return session === undefined ? `ip:${request.ip}` : `session:${createHash('sha256').update(session).digest('hex').slice(0, 32)}`;
    },
    addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true, 'retry-after': true },
    addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true },
    errorResponseBuilder: () => new AppError('rate_limited', 'Rate limit exceeded'),
  });

  if (!config.isProduction) await registerOpenApi(app, { version: deps.version, publicUrl: config.apiPublicUrl });

  for (const routes of publicRoutes) await app.register(routes, { deps });
  const origins = allowedOrigins([config.authUrl, config.apiPublicUrl]);
  const authOptions = { deps, origins, limits: authRateLimits() };
  for (const routes of authRoutes) await app.register(routes, authOptions);
  // the web admin UI (apps/studio), static files; it calls the admin plane like any client
  await registerStudio(app);
  // bench/tracking.ts only: the same GIF/302 without I/O; config refuses BENCH_BASELINE in production
  if (config.benchBaseline) await app.register(trackingBenchBaselineRoutes, { deps });
  await app.register(async (bearer) => {
    await bearerAuth(bearer, { authenticator: deps.authenticator, sessions: { sessions: deps.sessions, principals: deps.sessionPrincipals, origins } });
    await auditTrail(bearer, { db: deps.db });
    for (const routes of bearerRoutes) await bearer.register(routes, { deps });
    // bench/ingest.ts only: config refuses BENCH_BASELINE in production
    if (config.benchBaseline) await bearer.register(benchBaselineRoutes, { deps });
  });

  return app;
}
