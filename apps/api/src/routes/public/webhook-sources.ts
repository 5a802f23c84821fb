import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { isAppError } from '@waymark/core/errors/app-error';
import { receiveWebhook } from '@waymark/core/webhooks/sources/receive-webhook';
import type { MountedSource } from '@waymark/core/webhooks/sources/source-registry';
import type { SourceHeaders } from '@waymark/sources';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import { findUnstorable } from '@waymark/core/db/storable-value';
import { MAX_BODY_DEPTH } from '../../http/json-depth';
import { catalogViolations, errorBody } from '../../schemas/common';
import { addressCeiling, routeBudget } from '../../plugins/rate-limit';

/** Providers' payloads are small; a larger body is refused before it is buffered (413). */
export const WEBHOOK_SOURCE_BODY_LIMIT = 1024 * 1024;

const outcome = z
  .union([
    z.object({ ok: z.literal(true), skipped: z.literal(true) }),
    z.object({
      ok: z.literal(true),
      event: z.string(),
      userId: z.string(),
      exits: z.array(z.object({ journeyId: z.string(), stateId: z.uuid() })).describe('the journey states this event exited'),
      quarantined: z.literal(true).optional().describe('present only when the event catalog quarantined the event, as POST /v1/events answers'),
      catalogViolations: catalogViolations.optional(),
    }),
  ])
  .meta({ id: 'WebhookSourceResult' });

function headerMap(headers: IncomingHttpHeaders): SourceHeaders {
  const map: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) map[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return map;
}

/** One line of the OpenAPI description per mounted source: how it authenticates (names, never secrets). */
function describeSource({ source, auth }: MountedSource): string {
  const variable = source.auth.secret;
  let how: string;
  if (auth.type === 'match') {
    const header = auth.header === undefined ? '' : `header \`${auth.header}\` or `;
    how = `match: ${header}\`Authorization: Bearer\` equal to ${variable}${auth.secrets.length === 0 ? ' (unset: open)' : ''}`;
  } else {
    const headers = auth.scheme.headers.map((name) => `\`${name}\``).join(', ');
    const fallback = auth.fallbackHeader === undefined ? '' : `, or \`${auth.fallbackHeader}\` equal to it`;
    how = `signature: ${auth.scheme.name} (${headers}) with ${variable}${fallback}`;
  }
  return `- \`${source.id}\`: ${source.description ?? ''} — ${how}`;
}

/**
 * POST /v1/webhooks/{sourceId}: generic webhook sources (docs/sources.md). The body stays the
 * exact bytes the provider signed (a raw-body parser scoped to this plugin); the core function
 * verifies, validates, transforms and ingests. No bearer key: each source authenticates itself.
 */
export const webhookSourceRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  // refusals before the handler (a body over the limit, an aborted upload) are logged here with
  // the source, as receiveWebhook logs its own
  app.addHook('onError', async (request, _reply, error) => {
    if (isAppError(error)) return;
    const { sourceId } = request.params as { sourceId?: string };
    request.log.warn({ sourceId, status: error.statusCode, reason: error.code ?? error.message }, 'webhook source request rejected');
  });

  // a budget per source, not per address (providers deliver from shared pools of addresses),
  // spent once the delivery is authenticated (docs/operations.md, Rate limits)
  const budget = routeBudget(app, {
    name: 'webhook-source',
    max: deps.config.rateLimit.webhookSourceMax,
    key: (request) => (request.params as { sourceId: string }).sourceId,
  });

  // and a ceiling per address before any of that: unverified requests cost a verification each
  const ceiling = addressCeiling(app, { name: 'webhook-address', max: deps.config.rateLimit.webhookAddressMax });

  const mounted = deps.sources.list().map(describeSource);
  app.post(
    '/v1/webhooks/:sourceId',
    {
      config: { rateLimit: false },
      onRequest: ceiling,
      bodyLimit: WEBHOOK_SOURCE_BODY_LIMIT,
      schema: {
        tags: ['webhooks'],
        summary: 'Receive a webhook from a registered source (verify → validate → transform → ingest)',
        description: [
          'The body is the provider’s JSON, verified over its exact raw bytes (at most 1 MiB, else 413). Order: the address’s ceiling (WEBHOOK_ADDRESS_RATE_LIMIT_MAX requests a window, before the body is read; 429 with Retry-After) → unknown source 404 →',
          'authentication 401 → the source’s budget (WEBHOOK_SOURCE_RATE_LIMIT_MAX verified deliveries a window, per source id; 429 with Retry-After) → payload schema 400 → transform (nothing to ingest: 200 `{ok, skipped}`) → the POST /v1/events pipeline.',
          'A redelivery (same provider delivery id) is stored once. Sources mounted on this instance:',
          ...(mounted.length === 0 ? ['(none)'] : mounted),
        ].join('\n'),
        consumes: ['application/json'],
        params: z.object({ sourceId: z.string().describe('a registered source id, e.g. stripe, clerk, supabase, segment, analytics') }),
        // each source validates its own body (its shape is in docs/sources.md): one document cannot
        // tie a body schema to a path value, so the body is any JSON here and a mismatch is a 400
        body: z.unknown().describe('the provider’s payload, as it sent it'),
        response: { 200: outcome, 400: errorBody, 401: errorBody, 404: errorBody, 413: errorBody, 429: errorBody },
      },
    },
    async (request, reply) =>
      receiveWebhook(
        {
          sources: deps.sources,
          personCache: deps.personCache,
          ingest: deps.ingest,
          admit: async () => {
            const spent = await budget.spend(request);
            // the 429 itself is receiveWebhook's, like every other refusal
            if (!spent.within) void reply.header('retry-after', spent.retryAfterSeconds);
            return spent.within;
          },
          logger: request.log,
        },
        {
          sourceId: request.params.sourceId,
          headers: headerMap(request.headers),
          rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
          unstorable: (payload) => findUnstorable(payload, 'body', MAX_BODY_DEPTH),
        },
      ),
  );
};
