import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

const require = createRequire(import.meta.url);

/** The workflow code every worker runs: journeys, imports, batch enrollment, alerts, outbound webhooks. */
export const workflowsPath = require.resolve('@waymark/temporal/workflows/index');

/**
 * Bundles the workflow code ahead of time into `outFile`. A worker given the file
 * (TEMPORAL_WORKFLOW_BUNDLE) skips webpack at start-up, which on a busy 2-core box took longer than
 * everything else a restarted worker does (docs/scaling.md, crash recovery). The bundle must be
 * rebuilt with every change to journeys or workflow code, like any build artefact.
 */
export async function writeWorkflowBundle(outFile: string): Promise<void> {
  const { code } = await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
  await mkdir(path.dirname(outFile), { recursive: true });
  await writeFile(outFile, code);
}
