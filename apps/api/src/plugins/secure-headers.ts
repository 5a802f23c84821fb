import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

/**
 * helmet's default security headers on every answer (the studio's files replace its CSP with their
 * own: studio.ts). The headers are the same on every answer, so helmet's middleware, which parses
 * the CSP directives and builds each header's value, is built once here: @fastify/helmet built it
 * again for every request, a cost each request paid, the bare 302 of a tracked click included.
 */
export function registerSecureHeaders(app: FastifyInstance): void {
  const setSecureHeaders = helmet();
  app.addHook('onRequest', (request, reply, done) => setSecureHeaders(request.raw, reply.raw, (error) => done(error as Error | undefined)));
}
