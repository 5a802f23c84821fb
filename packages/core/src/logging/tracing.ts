import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Config } from '../config/config';

/** The OpenTelemetry SDK of a process that exports traces (docs/operations.md, "Tracing"). */
export interface Tracing {
  /** the batch processor in front of the OTLP exporter; Temporal's workflow spans go through it too */
  spanProcessor: SpanProcessor;
  /** this process's resource (service.name and the OTEL_RESOURCE_ATTRIBUTES) */
  resource: Resource;
  /** exports what is still buffered (a test reads its receiver after it) */
  flush(): Promise<void>;
  /** exports what is buffered and stops: the process traces nothing more */
  shutdown(): Promise<void>;
}

/**
 * Starts tracing for this process when OTEL_EXPORTER_OTLP_ENDPOINT is set, and returns undefined
 * (having loaded nothing of the SDK) when it is not. The SDK is imported here only, on demand, so a
 * process without tracing never loads it. It registers itself as the global tracer provider, with
 * the W3C trace-context propagator and an AsyncLocalStorage context manager: the Fastify and
 * Temporal instrumentations and Waymark's own spans (trace-context.ts) find it there. The exporter,
 * sampler and resource read the standard OTEL_* variables themselves (endpoint, headers, timeout,
 * OTEL_TRACES_SAMPLER, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES); `serviceName` is the default
 * service name (waymark-api, waymark-worker, waymark-cli).
 */
export async function startTracing(config: Pick<Config, 'tracing'>, serviceName: string): Promise<Tracing | undefined> {
  if (!config.tracing.enabled) return undefined;
  const [api, { NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { Resource, envDetectorSync }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const resource = Resource.default()
    .merge(new Resource({ 'service.name': serviceName }))
    .merge(envDetectorSync.detect());
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  return {
    spanProcessor,
    resource,
    flush: () => provider.forceFlush(),
    async shutdown() {
      await provider.shutdown();
      // the globals register() set go too: nothing in this process keeps finding a stopped tracer
      api.trace.disable();
      api.context.disable();
      api.propagation.disable();
    },
  };
}
