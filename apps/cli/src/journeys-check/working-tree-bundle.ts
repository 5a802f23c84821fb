import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { withoutWorkflowStackTraces } from '@waymark/temporal/workflow-realm';

const repoNodeModules = fileURLToPath(new URL('../../../../node_modules/', import.meta.url));

/**
 * The workflow bundle the worker would run if `journeysDir` were the deployment's journeys/: the
 * same workflow code (temporal/workflows/index.ts) with `@waymark/journeys` and its sub-paths
 * resolved to that folder. This is the seam `waymark journeys check --journeys-dir` uses to test a
 * checkout, a pull request's copy or a test's modified copy against the histories of live runs. The
 * folder may lie outside the repository: packages it imports resolve from the repository's
 * node_modules.
 */
export async function workingTreeWorkflowBundle(journeysDir: string): Promise<{ code: string }> {
  const workflowsPath = createRequire(import.meta.url).resolve('@waymark/temporal/workflows/index');
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    logger: new DefaultLogger('WARN'),
    webpackConfigHook: (config) =>
      withoutWorkflowStackTraces({
        ...config,
        resolve: {
          ...config.resolve,
          alias: { ...(config.resolve?.alias as Record<string, string> | undefined), '@waymark/journeys': path.resolve(journeysDir) },
          modules: [...(config.resolve?.modules ?? ['node_modules']), repoNodeModules],
        },
      }),
  });
  return { code };
}
