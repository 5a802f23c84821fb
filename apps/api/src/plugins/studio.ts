import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';

/**
 * Where `vite build` writes the studio (apps/studio/dist), seen from this file in the source tree
 * or from the compiled api, dist/api/server.js (npm run build bundles this module into it).
 */
const fromSource = fileURLToPath(new URL('../../../studio/dist', import.meta.url));
const fromBuild = fileURLToPath(new URL('../../apps/studio/dist', import.meta.url));
export const STUDIO_DIST = !existsSync(fromSource) && existsSync(fromBuild) ? fromBuild : fromSource;

/**
 * The studio's CSP: helmet's default minus `upgrade-insecure-requests` (which would send a plain
 * http://localhost install's own assets to https), plus data: images for inline icons. Email HTML
 * shown in the studio lives in sandboxed srcdoc iframes, which inherit this policy: remote images
 * of an email stay blocked, so opening a send never pings a tracker.
 */
const STUDIO_CSP = [
  "default-src 'self'",
  "base-uri 'self'",
  "font-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
].join('; ');

/**
 * GET /studio/*: the built studio. Hashed files under assets/ are cached for a year (their name
 * changes with their content); every other path answers index.html, uncached, so client-side
 * routes such as /studio/journeys/welcome-series work on reload and after a deploy. Static files
 * are not API calls: app.ts registers this before the rate limit, so they have no limit at all.
 */
export async function registerStudio(app: FastifyInstance, options: { root?: string } = {}): Promise<void> {
  const root = options.root ?? STUDIO_DIST;
  await app.register(async (studio) => {
    studio.addHook('onSend', async (_request, reply, payload) => {
      reply.header('content-security-policy', STUDIO_CSP);
      return payload;
    });
    if (!existsSync(`${root}/index.html`)) {
      const notBuilt = async (_request: unknown, reply: FastifyReply) =>
        reply.status(503).type('text/plain; charset=utf-8').send('Waymark Studio is not built yet: run `npm run build:studio` (npm start does it for you).');
      studio.get('/studio', { schema: { hide: true } }, notBuilt);
      studio.get('/studio/*', { schema: { hide: true } }, notBuilt);
      return;
    }
    await studio.register(fastifyStatic, {
      root,
      prefix: '/studio/',
      // one route per built file; unknown paths fall through to the SPA route below
      wildcard: false,
      index: false,
      schemaHide: true,
      setHeaders: (res, path) => {
        res.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
    const sendIndex = async (request: FastifyRequest, reply: FastifyReply) => {
      // a missing hashed asset is a stale tab after a deploy: a 404 lets the app reload itself
      if (request.url.startsWith('/studio/assets/')) return reply.status(404).type('text/plain; charset=utf-8').send('Not found');
      return reply.header('cache-control', 'no-cache').sendFile('index.html');
    };
    studio.get('/studio', { schema: { hide: true } }, sendIndex);
    studio.get('/studio/*', { schema: { hide: true } }, sendIndex);
  });
}
