import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TrackingHitKind } from '@waymark/core/metrics/prometheus';
import { z } from 'zod';
import { PIXEL_CACHE_CONTROL, TRANSPARENT_GIF } from '@waymark/email/tracking-pixel';
import { clientIp, type TrackingHit } from '@waymark/core/tracking/tracking-recorder';
import type { RoutePlugin } from '../../http/type-provider';
import { mediaResponse } from '../../schemas/common';
import type { AppDeps } from '../../deps';
import { routeBudget } from '../../plugins/rate-limit';

const tags = ['tracking'];
// any string: a malformed id still gets its redirect or its GIF, never a 400
const idParams = z.object({ id: z.string() });

/** The 42-byte GIF and its headers (bench/lib/baseline-routes.ts answers the same, so the two cannot drift apart). */
export function sendPixel(reply: FastifyReply): FastifyReply {
  return (
    reply
      .header('content-type', 'image/gif')
      .header('cache-control', PIXEL_CACHE_CONTROL)
      // helmet's default (same-origin) would stop webmail pages on other origins from showing the image
      .header('cross-origin-resource-policy', 'cross-origin')
      .send(TRANSPARENT_GIF)
  );
}

/** What the recorder needs of a request to judge it (docs/email.md, "Machine opens and clicks"). */
function trackingHit(request: FastifyRequest): TrackingHit {
  return {
    method: request.method,
    userAgent: request.headers['user-agent'] ?? null,
    // request.ip reads X-Forwarded-For only with TRUST_PROXY=true: a forged header cannot pass for Apple's proxy
    clientAddress: request.ip,
    ipAddress: clientIp(request.headers),
  };
}

/**
 * Public plane: tracking (docs/email.md). No credential; the pipeline push never delays the answer.
 * A recipient never meets a 429 (docs/operations.md, Rate limits): past the abuse ceiling of its
 * address a hit is still answered, but not recorded.
 */
export const trackingRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  const ceiling = routeBudget(app, { name: 'tracking', max: deps.config.rateLimit.trackingMax, key: (request) => request.ip });
  const recordable = async (request: FastifyRequest, kind: TrackingHitKind) => {
    if ((await ceiling.spend(request)).within) return true;
    deps.processMetrics.countTrackingDropped(kind);
    return false;
  };

  app.get(
    '/v1/t/c/:id',
    {
      config: { rateLimit: false },
      schema: {
        tags,
        summary: 'Follow a tracked link (records the click, 302 to the original URL; unknown id → API_PUBLIC_URL)',
        description: 'A HEAD is answered the same way and recorded as a machine click (docs/email.md, "Machine opens and clicks").',
        params: idParams,
        response: { 302: z.null().describe('redirect; Location is the original URL') },
      },
    },
    async (request, reply) => {
      let location = deps.config.apiPublicUrl;
      try {
        // within the ceiling the click is recorded; past it the recorder only reads where the link points
        location = (await deps.tracking.followLink(request.params.id, trackingHit(request), recordable(request, 'click'))) ?? location;
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
      config: { rateLimit: false },
      schema: {
        tags,
        summary: 'Open-tracking pixel (42-byte transparent GIF; the first open sets openedAt, the first by a person humanOpenedAt)',
        params: idParams,
        response: { 200: mediaResponse('42-byte transparent 1x1 GIF', { 'image/gif': z.string().meta({ format: 'binary' }) }) },
      },
    },
    async (request, reply) => {
      try {
        if (await recordable(request, 'open')) await deps.tracking.recordOpen(request.params.id, trackingHit(request));
      } catch (error) {
        request.log.error({ err: error, emailSendId: request.params.id }, 'tracking: could not record open');
      }
      return sendPixel(reply);
    },
  );
};
