import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { isAppError } from '@waymark/core/errors/app-error';
import { receiveWebhook } from '@waymark/core/webhooks/sources/receive-webhook';
import type { MountedSource } from '@waymark/core/webhooks/sources/source-registry';
import type { SourceHeaders } from '@waymark/sources';
import type { RoutePlugin } from '../../http/type-provider';
import type { AppDeps } from '../../deps';
import { MAX_BODY_DEPTH, nestsDeeperThan } from '../../http/json-depth';
import { errorBody } from '../../schemas/common';

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

function describeSource({ source, auth }: MountedSource): string {
  const how =
    source.auth.type === 'match'
      ? `match: header \`${auth.type === 'match' ? (auth.header ?? 'authorization') : ''}\` or \`Authorization: Bearer\` equal to ${source.auth.secret}` +
        (auth.secrets.length === 0 ? ' (unset: open)' : '')
      : `signature: ${source.auth.scheme.name} (${source.auth.scheme.headers.map((name) => `\`${name}\``).join(', ')}) with ${source.auth.secret}` +
        (source.auth.fallbackHeader === undefined ? '' : `, or \`${source.auth.fallbackHeader}\` equal to it`);
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

  const mounted = deps.sources.list().map(describeSource);
  app.post(
    '/v1/webhooks/:sourceId',
    {
      bodyLimit: WEBHOOK_SOURCE_BODY_LIMIT,
      schema: {
        tags: ['webhooks'],
        summary: 'Receive a webhook from a registered source (verify → validate → transform → ingest)',
        description: [
          'The body is the provider’s JSON, verified over its exact raw bytes (at most 1 MiB, else 413). Order: unknown source 404 →',
          'authentication 401 → payload schema 400 → transform (nothing to ingest: 200 `{ok, skipped}`) → the POST /v1/events pipeline.',
          'A redelivery (same provider delivery id) is stored once. Sources mounted on this instance:',
          ...(mounted.length === 0 ? ['(none)'] : mounted),
        ].join('\n'),
        consumes: ['application/json'],
        params: z.object({ sourceId: z.string().describe('a registered source id, e.g. stripe, clerk, supabase, segment, analytics') }),
        body: z.unknown().describe('the provider’s payload, as it sent it'),
        response: { 200: outcome, 400: errorBody, 401: errorBody, 404: errorBody, 413: errorBody, 429: errorBody },
      },
    },
    async (request) =>
      receiveWebhook(
        { sources: deps.sources, personCache: deps.personCache, ingest: deps.ingest, logger: request.log },
        {
          sourceId: request.params.sourceId,
          headers: headerMap(request.headers),
          rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
          tooDeep: (payload) => nestsDeeperThan(payload, MAX_BODY_DEPTH),
        },
      ),
  );
};
