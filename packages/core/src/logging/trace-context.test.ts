import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterEach, describe, expect, it } from 'vitest';
import { activeTraceIds, currentTraceparent, inSpan, inSpanContinuing } from './trace-context';

const CALLER = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('trace context with tracing off', () => {
  it('runs the work as it is: no span, no ids, nothing to keep', async () => {
    const seen = await inSpan('work', {}, async () => ({ ids: activeTraceIds(), parent: currentTraceparent(), span: trace.getActiveSpan() }));
    expect(seen).toEqual({ ids: undefined, parent: undefined, span: undefined });
    expect(await inSpanContinuing(null, 'work', {}, async () => activeTraceIds())).toBeUndefined();
  });
});

describe('trace context with tracing on', () => {
  let provider: NodeTracerProvider | undefined;
  // one per test: a provider's shutdown stops its exporter
  let exporter = new InMemorySpanExporter();
  const start = () => {
    exporter = new InMemorySpanExporter();
    provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    provider.register();
  };
  afterEach(async () => {
    await provider?.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it("continues a kept traceparent: the span is the caller's child, and what it keeps and logs names that trace", async () => {
    start();
    const inside = await inSpanContinuing(CALLER, 'journey effect start', { 'waymark.journey.id': 'welcome-series' }, async () =>
      inSpan('ses SendEmail', {}, async () => ({ ids: activeTraceIds(), parent: currentTraceparent() })),
    );
    const [ses, effect] = exporter.getFinishedSpans();
    expect(effect!.name).toBe('journey effect start');
    expect(effect!.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(effect!.parentSpanId).toBe('00f067aa0ba902b7');
    expect(effect!.attributes).toEqual({ 'waymark.journey.id': 'welcome-series' });
    expect(ses!.parentSpanId).toBe(effect!.spanContext().spanId);
    expect(inside.ids).toEqual({ trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: ses!.spanContext().spanId });
    expect(inside.parent).toBe(`00-4bf92f3577b34da6a3ce929d0e0e4736-${ses!.spanContext().spanId}-01`);
  });

  it('records a failure on the span and rethrows it', async () => {
    start();
    await expect(inSpanContinuing(CALLER, 'journey effect start', {}, async () => Promise.reject(new Error('Temporal refused')))).rejects.toThrow(
      'Temporal refused',
    );
    expect(exporter.getFinishedSpans()[0]!.status).toMatchObject({ code: 2, message: 'Temporal refused' });
  });

  it('makes no span of its own where no trace is active (work no traced request began)', async () => {
    start();
    expect(await inSpan('ses SendEmail', {}, async () => activeTraceIds())).toBeUndefined();
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });
});
