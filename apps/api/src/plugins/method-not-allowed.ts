import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { FastifyInstance } from 'fastify';

/**
 * 405 with an `Allow` header (RFC 9110 §15.5.6) for a known path asked with a method it does not
 * serve, instead of Fastify's 404. Every route is mirrored, as it is added, into a second
 * find-my-way router (the one Fastify itself uses, with the same path options), so routes added
 * by any plugin, now or later, get it without declaring anything.
 */
export function registerMethodNotAllowed(app: FastifyInstance, options: { maxParamLength: number }): void {
  const router = FindMyWay({ maxParamLength: options.maxParamLength });
  const seen = new Set<string>();
  const methods = new Set<HTTPMethod>();

  app.addHook('onRoute', (route) => {
    // the CORS preflight catch-all answers OPTIONS on every path; it says nothing about a path
    if (route.url === '*' || route.url === '/*') return;
    const routeMethods = (Array.isArray(route.method) ? route.method : [route.method]) as HTTPMethod[];
    for (const method of routeMethods) {
      const key = `${method} ${route.url}`;
      if (seen.has(key)) continue;
      seen.add(key);
      methods.add(method);
      router.on(method, route.url, () => undefined);
    }
  });

  // onRequest, so the answer comes before body parsing (a QUERY without a body type would be a 400)
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    const path = request.url.split('?')[0] ?? '/';
    const allowed = [...methods].filter((method) => router.find(method, path) !== null);
    if (allowed.length === 0) return;
    if (allowed.includes('GET') && !allowed.includes('HEAD')) allowed.push('HEAD');
    return reply
      .status(405)
      .header('allow', allowed.sort().join(', '))
      .send({ error: `Method ${request.method} not allowed on ${path}; allowed: ${allowed.join(', ')}` });
  });
}
