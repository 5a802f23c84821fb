import type { FastifyPluginAsync, RawServerDefault } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';

/**
 * Route modules are plugins typed by the zod provider. Responses are *encoded* with their
 * schema (zod codecs), so handlers return domain values (Dates) and the wire gets ISO strings.
 */
export type RoutePlugin<Options extends Record<string, unknown>> = FastifyPluginAsync<Options, RawServerDefault, ZodTypeProvider>;
