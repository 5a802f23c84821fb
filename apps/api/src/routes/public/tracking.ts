import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { PIXEL_CACHE_CONTROL, TRANSPARENT_GIF } from '@waymark/email/tracking-pixel';
import { clientIp } from '@waymark/core/tracking/tracking-recorder';
import type { RoutePlugin } from '../../http/type-provider';
import { mediaResponse } from '../../schemas/common';
import type { AppDeps } from '../../deps';

const tags = ['tracking'];
// any string: a malformed id still gets its redirect or its GIF, never a 400
const idParams = z.object({ id: z.string() });

/** The 42-byte GIF and its headers, shared with the bench baseline so the two cannot drift apart. */
function sendPixel(reply: FastifyReply): FastifyReply {
  return (
    reply
      .header('content-type', 'image/gif')
      .header('cache-control', PIXEL_CACHE_CONTROL)
      // helmet's default (same-origin) would stop webmail pages on other origins from showing the image
      .header('cross-origin-resource-policy', 'cross-origin')
      .send(TRANSPARENT_GIF)
  );
}

/** SPEC §4 Public: tracking. No credential; the pipeline push never delays the answer. */
export const trackingRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/v1/t/c/:id',
    {
      schema: {
        tags,
        summary: 'Follow a tracked link (records the click, 302 to the original URL; unknown id → API_PUBLIC_URL)',
        params: idParams,
        response: { 302: z.null().describe('redirect; Location is the original URL') },
      },
    },
    async (request, reply) => {
      let location = deps.config.apiPublicUrl;
      try {
        location =
          (await deps.tracking.followLink({
            linkId: request.params.id,
            ipAddress: clientIp(request.headers),
            userAgent: request.headers['user-agent'] ?? null,
          })) ?? location;
      } catch (error) {
        // the recipient still reaches a page; the click is lost and logged
        request.log.error({ err: error, linkId: request.params.id }, 'tracking: could not record click');
      }
      return reply.header('cache-control', 'no-store').redirect(location, 302);
    },
  );

  app.get(
    '/v1/t/o/:id',
    {
      schema: {
        tags,
        summary: 'Open-tracking pixel (42-byte transparent GIF; the first open sets openedAt)',
        params: idParams,
        response: { 200: mediaResponse('42-byte transparent 1x1 GIF', { 'image/gif': z.string().meta({ format: 'binary' }) }) },
      },
    },
    async (request, reply) => {
      try {
        await deps.tracking.recordOpen(request.params.id);
      } catch (error) {
        request.log.error({ err: error, emailSendId: request.params.id }, 'tracking: could not record open');
      }
      return sendPixel(reply);
    },
  );
};

/**
 * bench/tracking.ts baselines: the same GIF and 302 with no I/O, in the same server. Mounted
 * only with BENCH_BASELINE outside production (app.ts); never part of the product API.
 */
export const trackingBenchBaselineRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get('/v1/bench/baseline/pixel/:id', { schema: { hide: true, params: idParams } }, async (_request, reply) => sendPixel(reply));
  app.get('/v1/bench/baseline/click/:id', { schema: { hide: true, params: idParams } }, async (_request, reply) =>
    reply.header('cache-control', 'no-store').redirect(deps.config.apiPublicUrl, 302),
  );
};
