import { createRequire } from 'node:module';
import type { ClientInterceptors } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client/index.js';
import type { WorkerOptions } from '@temporalio/worker';
import type { Tracing } from '@waymark/core/logging/tracing';

/**
 * Temporal's part of tracing (docs/operations.md, "Tracing"), from Temporal's own OpenTelemetry
 * interceptors: a start or signal carries the caller's trace in the workflow's headers, the run
 * records its spans (exported by the worker through a sink) and hands the trace on to each
 * activity. With tracing off none of them is registered, so Temporal's calls run as they are.
 */

/** The client interceptors of a process with tracing on (none otherwise). */
export function tracingClientInterceptors(enabled: boolean): { interceptors?: ClientInterceptors } {
  return enabled ? { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } } : {};
}

/** The workflow interceptor module: bundled into the workflow code when tracing is on. */
export function tracingWorkflowModule(): string {
  return createRequire(import.meta.url).resolve('@waymark/temporal/workflows/tracing-interceptors');
}

/**
 * The worker's interceptors and the sink its runs export their spans through, given the process's
 * tracing (none without). The workflow interceptors go into the workflow code: here when the worker
 * bundles it at start-up (`bundling`), else they must be in the prebuilt bundle (workflow-bundle.ts).
 */
export async function workerTracing(tracing: Tracing | undefined, options: { bundling: boolean }): Promise<Pick<WorkerOptions, 'interceptors' | 'sinks'>> {
  if (tracing === undefined) return {};
  const { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor, makeWorkflowExporter } =
    await import('@temporalio/interceptors-opentelemetry/lib/worker/index.js');
  return {
    interceptors: {
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
      ...(options.bundling ? { workflowModules: [tracingWorkflowModule()] } : {}),
    },
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}
