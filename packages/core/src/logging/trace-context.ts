import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Attributes, type Context } from '@opentelemetry/api';

/**
 * Spans of Waymark's own work (docs/operations.md, "Tracing"), on OpenTelemetry's API package
 * only: the SDK that records and exports them is loaded by `startTracing` (tracing.ts) when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set. Unset, no span is ever active, so each helper here returns
 * after one look-up that finds none and runs the work as it is: nothing is created or recorded.
 */

const TRACER = 'waymark';

/** Span attribute names: ids only, never an address (docs/operations.md, "Tracing"). */
export const SpanAttribute = {
  journeyId: 'waymark.journey.id',
  userId: 'waymark.user.id',
  template: 'waymark.template',
  sendId: 'waymark.send.id',
  eventId: 'waymark.event.id',
  eventName: 'waymark.event.name',
  effect: 'waymark.effect',
  webhookEndpointId: 'waymark.webhook.endpoint.id',
  webhookDeliveryId: 'waymark.webhook.delivery.id',
  webhookEventType: 'waymark.webhook.event.type',
  webhookEventId: 'waymark.webhook.event.id',
  /** delivered, failed or skipped */
  webhookOutcome: 'waymark.webhook.outcome',
} as const;

/** The W3C `traceparent` of the span active now, kept with work another process picks up; undefined with tracing off. */
export function currentTraceparent(): string | undefined {
  if (trace.getActiveSpan() === undefined) return undefined;
  const carrier: { traceparent?: string } = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The ids of the active span, for a log line of the work it covers; undefined with tracing off. */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  const span = trace.getActiveSpan();
  if (span === undefined) return undefined;
  const ids = span.spanContext();
  return { trace_id: ids.traceId, span_id: ids.spanId };
}

/** Sets attributes on the span active now (a Temporal activity's, an HTTP request's); nothing with tracing off. */
export function annotateActiveSpan(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}

/**
 * Runs `work` in a child span of the active one; with no active span (tracing off, or work that no
 * traced request began) it just runs `work`.
 */
export function inSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  if (trace.getActiveSpan() === undefined) return work();
  return runSpan(name, attributes, context.active(), work);
}

/**
 * Runs `work` in a span continuing the trace of a kept `traceparent` (an outbox row's: the request
 * that stored it ended long ago, maybe in another process); with none it just runs `work`.
 */
export function inSpanContinuing<T>(traceparent: string | null | undefined, name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  if (traceparent === null || traceparent === undefined) return inSpan(name, attributes, work);
  return runSpan(name, attributes, propagation.extract(ROOT_CONTEXT, { traceparent }), work);
}

/** Runs `work` in a span of its own, a new trace unless one is active (a CLI command); with tracing off a no-op span. */
export function inNewSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  return runSpan(name, attributes, context.active(), work);
}

function runSpan<T>(name: string, attributes: Attributes, parent: Context, work: () => Promise<T>): Promise<T> {
  return trace.getTracer(TRACER).startActiveSpan(name, { attributes }, parent, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}
