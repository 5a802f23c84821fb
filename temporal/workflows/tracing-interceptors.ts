/**
 * The workflow side of tracing (docs/operations.md, "Tracing"): Temporal's OpenTelemetry workflow
 * interceptors, which continue the caller's trace in a run and pass it on to each activity. Not a
 * workflow: a workflow interceptor module, bundled in only when tracing is on (temporal/tracing.ts)
 * or the bundle is built for it (`npm run build:workflows -- --tracing`).
 */
export { interceptors } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors.js';
