import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { badRequest } from '@waymark/core/errors/app-error';
import type { AppLogger } from '@waymark/core/logging/logger';
import type { AppDeps } from './deps';
import { MAX_BODY_DEPTH } from './http/json-depth';
import { findUnstorable } from '@waymark/core/db/storable-value';
import { auditTrail } from './plugins/audit-trail';
import { bearerAuth } from './plugins/bearer-auth';
import { registerErrorHandler, sendFrameworkError } from './plugins/error-handler';
import { registerMethodNotAllowed } from './plugins/method-not-allowed';
import { registerSharedErrorResponses } from './plugins/shared-error-responses';
import { registerOpenApi } from './plugins/openapi';
import { registerRateLimit } from './plugins/rate-limit';
import { registerSecureHeaders } from './plugins/secure-headers';
import { registerStudio } from './plugins/studio';
import { registerTracing } from './plugins/tracing';
// Route files live in one folder per plane (docs/contributing.md): routes/public (no credential),
// routes/data (product servers, `ingest` scope) and routes/admin (operators, `read` and up).
import { emailPageRoutes } from './routes/public/email-pages';
import { emailProviderWebhookRoutes } from './routes/public/email-provider-webhook';
import { healthRoutes } from './routes/public/health';
import { trackingRoutes } from './routes/public/tracking';
import { dataContactRoutes } from './routes/data/contacts';
import { dataEmailRoutes } from './routes/data/emails';
import { eventRoutes } from './routes/data/events';
import { dataListRoutes } from './routes/data/lists';
import { alertRoutes } from './routes/admin/alerts';
import { apiKeyRoutes } from './routes/admin/api-keys';
import { auditLogRoutes } from './routes/admin/audit-logs';
import { contactListRoutes } from './routes/admin/contact-lists';
import { contactPreferenceRoutes } from './routes/admin/contact-preferences';
import { contactTimelineRoutes } from './routes/admin/contact-timeline';
import { contactRoutes } from './routes/admin/contacts';
import { contactBulkRoutes } from './routes/admin/contacts-bulk';
import { dlqRoutes } from './routes/admin/dlq';
import { deliverabilityResumeRoutes } from './routes/admin/deliverability-resume';
import { adminEmailRoutes } from './routes/admin/emails';
import { adminEventRoutes } from './routes/admin/events';
import { journeyRoutes } from './routes/admin/journeys';
import { journeyOutcomeRoutes } from './routes/admin/journey-outcomes';
import { journeySimulationRoutes } from './routes/admin/journey-simulations';
import { journeyMapRoutes } from './routes/admin/journey-map';
import { metricsRoutes } from './routes/admin/metrics';
import { suppressionRoutes } from './routes/admin/suppressions';
import { webhookSourceRoutes } from './routes/public/webhook-sources';
import { webhookEndpointRoutes } from './routes/admin/webhook-endpoints';
import { eventCatalogRoutes } from './routes/admin/event-catalog';
import { categoryRoutes } from './routes/admin/categories';
import { deliveryPolicyRoutes } from './routes/admin/delivery-policy';
import { deliverabilityRoutes } from './routes/admin/deliverability';
import { segmentRoutes } from './routes/admin/segments';
import { broadcastRoutes } from './routes/admin/broadcasts';
import { contactExplainRoutes } from './routes/admin/contact-explain';
import { studioStatusRoutes } from './routes/public/studio-status';
import { insightRoutes } from './routes/admin/insights';
import { templateRoutes } from './routes/admin/templates';
import { temporalCodecRoutes } from './routes/admin/temporal-codec';
import { authRateLimits } from './routes/auth/options';
import { authOrganizationRoutes } from './routes/auth/organizations';
import { authPasswordRoutes } from './routes/auth/passwords';
import { authSessionRoutes } from './routes/auth/sessions';
import { allowedOrigins } from './http/same-origin';

/** Public plane: no credential; each route authenticates by its own means (signed token, SNS signature) or needs none. */
const publicRoutes = [healthRoutes, trackingRoutes, emailPageRoutes, emailProviderWebhookRoutes, webhookSourceRoutes, studioStatusRoutes];

/** Data plane: what a product's servers call with an `ingest` key (/v1/events, /v1/contacts, /v1/emails, /v1/lists). */
const dataRoutes = [eventRoutes, dataContactRoutes, dataEmailRoutes, dataListRoutes];

/** Admin plane: operators and the studio under /v1/admin (and /v1/metrics); each route declares its scope. */
const adminRoutes = [
  contactRoutes,
  contactTimelineRoutes,
  contactPreferenceRoutes,
  categoryRoutes,
  deliveryPolicyRoutes,
  deliverabilityRoutes,
  segmentRoutes,
  broadcastRoutes,
  contactListRoutes,
  contactExplainRoutes,
  contactBulkRoutes,
  journeyRoutes,
  journeyOutcomeRoutes,
  journeySimulationRoutes,
  journeyMapRoutes,
  adminEventRoutes,
  adminEmailRoutes,
  suppressionRoutes,
  dlqRoutes,
  deliverabilityResumeRoutes,
  alertRoutes,
  metricsRoutes,
  apiKeyRoutes,
  auditLogRoutes,
  webhookEndpointRoutes,
  eventCatalogRoutes,
  // what the studio needs beyond the contract's admin plane: templates, overview series, funnels
  templateRoutes,
  insightRoutes,
  // the Temporal Web UI's remote codec: sealed payloads opened for a full-admin viewer
  temporalCodecRoutes,
];

/** People signing in under /api/auth/* (sessions, passwords, organizations; docs/auth.md). */
const authRoutes = [authSessionRoutes, authPasswordRoutes, authOrganizationRoutes];

const REQUEST_ID = /^[\w.:-]{1,128}$/;
const MAX_PARAM_LENGTH = 4096;

export interface BuildAppOptions {
  deps: AppDeps;
  logger: AppLogger;
}

/** The Fastify app as a value: server.ts listens on it, tests drive it with inject or HTTP. */
function hopsFromSocket(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

export async function buildApp({ deps, logger }: BuildAppOptions): Promise<FastifyInstance> {
  const { config } = deps;
  const baseLogger: FastifyBaseLogger = logger;
  const app = Fastify({
    loggerInstance: baseLogger,
    // one readable line per request comes from the onResponse hook below, at the `http` level
    logController: new LogController({ disableRequestLogging: true }),
    // a hop count trusts that many hops nearest the socket (proxy-addr's rule); Fastify 5.12 takes a
    // bare number as "trust nothing", since it cannot tell a proxy from a client that connects
    // directly: docs/deploy.md says to use a count only where the api is reachable only through the proxies
    trustProxy: typeof config.trustProxy === 'number' ? hopsFromSocket(config.trustProxy) : config.trustProxy,
    bodyLimit: 5 * 1024 * 1024,
    // a contact `{id}` may be an externalId of up to 512 characters; longer parameters still reach
    // the route, whose schema answers 400 naming the parameter (past this, the router answers 414)
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: sendFrameworkError,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // first, so every route and hook added after it is covered (docs/operations.md, "Tracing"); nothing with tracing off
  await registerTracing(app, config.tracing.enabled);
  // Order: secure headers, CORS, compression, request id, request logging, error handler.
  registerSecureHeaders(app);
  // Any origin may read an answer to a bearer key (the key is the credential), never with a
  // session's cookie: a route that takes credentials from another origin says so in its own
  // `config.cors` (the Temporal codec endpoint), which this plugin merges per route.
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
  registerMethodNotAllowed(app, { maxParamLength: MAX_PARAM_LENGTH });
  registerSharedErrorResponses(app);
  // The one check of request input PostgreSQL could not store (and of the body's depth, in the
  // same walk), before any route runs: core stores what it is given, and a value that still slips
  // through (a journey's own code) is mapped to a 400 by the error handler. The Idempotency-Key
  // header is the one header a route stores. Webhook payloads are raw bytes here; their route
  // runs this check on the parsed payload.
  app.addHook('preValidation', async (request) => {
    const unstorable =
      findUnstorable(request.params, 'path') ??
      findUnstorable(request.query, 'query') ??
      findUnstorable(request.headers['idempotency-key'], 'Idempotency-Key header') ??
      findUnstorable(request.body, 'body', MAX_BODY_DEPTH);
    if (unstorable !== undefined) throw badRequest(`Invalid request: ${unstorable}`);
  });

  // the web admin UI (apps/studio), static files; it calls the admin plane like any client. It is
  // registered before the rate limit on purpose: @fastify/rate-limit attaches its hook to each
  // route as the route is added (an onRoute hook of the root, which runs before any hook of a
  // child context could say `rateLimit: false`), so routes added before it have no limit at all.
  await registerStudio(app);
  await registerRateLimit(app, { config, redis: deps.redis, logger, sessions: deps.sessions, authenticator: deps.authenticator });

  if (!config.isProduction) await registerOpenApi(app, { version: deps.version, publicUrl: config.apiPublicUrl });

  for (const routes of publicRoutes) await app.register(routes, { deps });
  const origins = allowedOrigins([config.authUrl, config.apiPublicUrl]);
  const authOptions = { deps, origins, limits: authRateLimits() };
  for (const routes of authRoutes) await app.register(routes, authOptions);
  await app.register(async (bearer) => {
    await bearerAuth(bearer, { authenticator: deps.authenticator, sessions: { sessions: deps.sessions, principals: deps.sessionPrincipals, origins } });
    await auditTrail(bearer, { db: deps.db, transactions: deps.transactions });
    for (const routes of [...dataRoutes, ...adminRoutes]) await bearer.register(routes, { deps });
  });

  return app;
}
