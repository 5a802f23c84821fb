import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, type WorkerOptions } from '@temporalio/worker';
import { withoutWorkflowStackTraces } from '@waymark/temporal/workflow-realm';

/** The workflow code every worker runs: journeys, imports, batch enrollment, alerts, outbound webhooks. */
function workflowsPath(): string {
  return createRequire(import.meta.url).resolve('@waymark/temporal/workflows/index');
}

/**
 * The bundle `npm run build` writes beside the compiled worker (dist/worker/main.js →
 * dist/workflow-bundle.js). Seen from this file in the source tree the path names no file, so a
 * worker run from source never picks up a stale build.
 */
const builtBundle = fileURLToPath(new URL('../workflow-bundle.js', import.meta.url));

/**
 * Where the worker takes its workflow code from: the bundle named by TEMPORAL_WORKFLOW_BUNDLE,
 * else the compiled worker's own prebuilt bundle, else the sources, bundled with webpack at start-up.
 */
export function workflowCode(configuredBundle: string | undefined): Pick<WorkerOptions, 'workflowsPath' | 'workflowBundle' | 'bundlerOptions'> {
  const codePath = configuredBundle ?? (existsSync(builtBundle) ? builtBundle : undefined);
  return codePath === undefined
    ? { workflowsPath: workflowsPath(), bundlerOptions: { webpackConfigHook: withoutWorkflowStackTraces } }
    : { workflowBundle: { codePath } };
}

/**
 * Bundles the workflow code ahead of time into `outFile`. A worker given the file
 * (TEMPORAL_WORKFLOW_BUNDLE) skips webpack at start-up, which on a busy 2-core box took longer than
 * everything else a restarted worker does (docs/scaling.md, crash recovery). The bundle must be
 * rebuilt with every change to journeys or workflow code, like any build artefact.
 */
export async function writeWorkflowBundle(outFile: string): Promise<void> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: workflowsPath(),
    logger: new DefaultLogger('WARN'),
    webpackConfigHook: withoutWorkflowStackTraces,
  });
  await mkdir(path.dirname(outFile), { recursive: true });
  await writeFile(outFile, code);
}
