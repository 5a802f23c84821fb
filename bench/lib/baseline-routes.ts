/**
 * The bare endpoints each benchmark divides by. They live here, not in the product: the bench
 * registers them on the app buildApp returns (before it listens), so they pass the same root
 * plugins as the product routes (helmet, CORS, compression, request id, logging, the Redis-backed
 * rate limiter) and differ only in the work the handler does.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { bearerAuth } from '../../apps/api/src/plugins/bearer-auth';
import { sendPixel } from '../../apps/api/src/routes/public/tracking';
import type { AppDeps } from '../../apps/api/src/deps';

const idParams = z.object({ id: z.string() });
const bareEvent = z.object({ name: z.string().min(1), userId: z.string().min(1) });

export async function registerBaselineRoutes(app: FastifyInstance, deps: AppDeps, options: { pingTaskQueue: string }): Promise<void> {
  // tracking: the same GIF / 302 as /v1/t/o and /v1/t/c, without I/O
  const open = app.withTypeProvider<ZodTypeProvider>();
  open.get('/bench/baseline/pixel/:id', { schema: { hide: true, params: idParams } }, async (_request, reply) => sendPixel(reply));
  open.get('/bench/baseline/click/:id', { schema: { hide: true, params: idParams } }, async (_request, reply) =>
    reply.header('cache-control', 'no-store').redirect(deps.config.apiPublicUrl, 302),
  );

  await app.register(async (plain) => {
    // the baseline is keyed, like the product routes it stands beside; no session origin is accepted
    await bearerAuth(plain, {
      authenticator: deps.authenticator,
      sessions: { sessions: deps.sessions, principals: deps.sessionPrincipals, origins: new Set<string>() },
    });
    const bearer = plain.withTypeProvider<ZodTypeProvider>();
    // ingest without journeys: one authenticated INSERT, 202
    bearer.post(
      '/bench/baseline/insert',
      { config: { scope: 'ingest' }, schema: { hide: true, body: bareEvent, response: { 202: z.object({ stored: z.boolean() }) } } },
      async (request, reply) => {
        await deps.db.insertInto('events').values({ userId: request.body.userId, event: request.body.name, properties: '{}', source: 'bench' }).execute();
        return reply.status(202).send({ stored: true });
      },
    );
    // an admin read: one authenticated SELECT by a unique index (a journey run by its workflow id), 200
    bearer.get(
      '/bench/baseline/read/:id',
      { config: { scope: 'read' }, schema: { hide: true, params: idParams, response: { 200: z.object({ found: z.boolean() }) } } },
      async (request) => {
        const row = await deps.db.selectFrom('journeyStates').select('id').where('workflowId', '=', request.params.id).executeTakeFirst();
        return { found: row !== undefined };
      },
    );
    // ingest that starts a journey: only a workflow start (the trivial ping workflow, drained by the
    // bench's worker on a queue of its own: bench/lib/worker-process.ts) on the same Temporal
    bearer.post(
      '/bench/baseline/start',
      { config: { scope: 'ingest' }, schema: { hide: true, body: bareEvent, response: { 202: z.object({ stored: z.boolean() }) } } },
      async (_request, reply) => {
        await deps.temporal.client.workflow.start('pingWorkflow', {
          taskQueue: options.pingTaskQueue,
          workflowId: `bench-${randomUUID()}`,
          args: ['bench'],
        });
        return reply.status(202).send({ stored: true });
      },
    );
  });
}
