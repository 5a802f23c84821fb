import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, type WorkerOptions } from '@temporalio/worker';
import { failureConverterPath } from '@waymark/temporal/payload-codec';
import { tracingWorkflowModule } from '@waymark/temporal/tracing';
import { withoutWorkflowStackTraces } from '@waymark/temporal/workflow-realm';

/** The workflow code every worker runs: journeys, imports, batch enrollment, alerts, outbound webhooks. */
function workflowsPath(): string {
  return createRequire(import.meta.url).resolve('@waymark/temporal/workflows/index');
}

/**
 * The bundles `npm run build` writes beside the compiled worker (dist/worker/main.js →
 * dist/workflow-bundle.js, and dist/workflow-bundle-tracing.js with the workflow side of tracing).
 * Seen from this file in the source tree the paths name no file, so a worker run from source never
 * picks up a stale build.
 */
const builtBundle = fileURLToPath(new URL('../workflow-bundle.js', import.meta.url));
const builtTracingBundle = fileURLToPath(new URL('../workflow-bundle-tracing.js', import.meta.url));

/**
 * Where the worker takes its workflow code from: the bundle named by TEMPORAL_WORKFLOW_BUNDLE,
 * else the compiled worker's own prebuilt bundle (the one with tracing's workflow interceptors when
 * `tracing` is on), else the sources, bundled with webpack at start-up.
 */
export function workflowCode(
  configuredBundle: string | undefined,
  tracing = false,
): Pick<WorkerOptions, 'workflowsPath' | 'workflowBundle' | 'bundlerOptions'> {
  const built = tracing ? builtTracingBundle : builtBundle;
  const codePath = configuredBundle ?? (existsSync(built) ? built : undefined);
  return codePath === undefined
    ? { workflowsPath: workflowsPath(), bundlerOptions: { webpackConfigHook: withoutWorkflowStackTraces } }
    : { workflowBundle: { codePath } };
}

/**
 * Bundles the workflow code ahead of time into `outFile`. A worker given the file
 * (TEMPORAL_WORKFLOW_BUNDLE) skips webpack at start-up, which on a busy 2-core box took longer than
 * everything else a restarted worker does (docs/scaling.md, crash recovery). The bundle must be
 * rebuilt with every change to journeys or workflow code, like any build artefact; `tracing` bundles
 * the workflow side of tracing in, for workers with OTEL_EXPORTER_OTLP_ENDPOINT set.
 */
export async function writeWorkflowBundle(outFile: string, options: { tracing?: boolean } = {}): Promise<void> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: workflowsPath(),
    logger: new DefaultLogger('WARN'),
    webpackConfigHook: withoutWorkflowStackTraces,
    // failures the runs raise are sealed like their payloads (docs/security.md); a worker bundling at
    // start-up takes it from its data converter
    failureConverterPath: failureConverterPath(),
    // a bundle for workers with tracing on carries Temporal's workflow interceptors (docs/operations.md,
    // "Tracing"); a worker bundling at start-up adds them itself when tracing is on
    ...(options.tracing === true ? { workflowInterceptorModules: [tracingWorkflowModule()] } : {}),
  });
  await mkdir(path.dirname(outFile), { recursive: true });
  await writeFile(outFile, code);
}
