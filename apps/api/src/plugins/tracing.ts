import type { FastifyInstance } from 'fastify';

/**
 * The api's request spans (docs/operations.md, "Tracing"), from Fastify's own OpenTelemetry plugin,
 * registered only with tracing on (and loaded only then). Each request gets a server span named for
 * its route (`POST /v1/events`) whose parent is the caller's `traceparent` when it sends one, and
 * the route's handler runs inside it, so what the request does (storing the event, keeping its
 * journey effects with the trace) is in the caller's trace. Lifecycle hooks get no spans of their
 * own: the request and its handler are what an operator follows, at a fraction of the cost.
 */
export async function registerTracing(app: FastifyInstance, enabled: boolean): Promise<void> {
  if (!enabled) return;
  const { FastifyOtelInstrumentation } = await import('@fastify/otel');
  const instrumentation = new FastifyOtelInstrumentation({
    instrumentHooks: false,
    requestHook: (span, request) => {
      span.updateName(`${request.method} ${request.routeOptions.url ?? 'unmatched route'}`);
      // the plugin records the whole URL; a link's query is its token (reset, invitation,
      // unsubscribe and preference pages), and span attributes never carry one (docs/security.md)
      span.setAttribute('url.path', request.url.split('?')[0]!);
    },
  });
  await app.register(instrumentation.plugin());
}
