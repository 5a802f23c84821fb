import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/** GET /openapi.json (OpenAPI 3.1 from the routes' zod schemas) and GET /docs; never in production. */
export async function registerOpenApi(app: FastifyInstance, options: { version: string; publicUrl: string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Waymark API',
        version: options.version,
        description:
          'Lifecycle email automation: ingest events, run code-defined journeys on Temporal, send through Amazon SES. ' +
          'Bearer keys carry scopes read, journey-admin, full-admin and ingest; people sign in under /api/auth/* and get a session cookie (see docs/auth.md).',
      },
      servers: [{ url: options.publicUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          session: { type: 'apiKey', in: 'cookie', name: 'waymark_session', description: 'set by POST /api/auth/sign-in/email' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
