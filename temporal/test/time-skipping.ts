import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { cachedWorkflowBundle, type CachedWorkflowBundle } from './workflow-bundle';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The workflow bundle entry the worker uses: tests run the real journey runner. */
export const workflowsPath = path.join(repoRoot, 'temporal/workflows/index.ts');

/** Where built workflow bundles are kept between runs (node_modules/.cache is where tools keep theirs). */
const bundleCacheDir = path.join(repoRoot, 'node_modules/.cache/waymark/workflow-bundles');

/**
 * The worker's workflow bundle, built by webpack only when a file it is made of has changed since
 * the last build (otherwise read from node_modules/.cache): test processes, the replay test and
 * simulations share it.
 */
export function journeyWorkflowBundle(): Promise<CachedWorkflowBundle> {
  return cachedWorkflowBundle(workflowsPath, bundleCacheDir);
}

/**
 * A time-skipping environment on the Temporal Java test server, started through
 * scripts/temporal-test-server.sh (fetched by scripts/stack.sh): the SDK's own download of the
 * server cannot work on machines without general internet access.
 */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  // The SDK gives the JVM 5 s to answer; on a saturated machine a start can miss that, so try
  // again (the last failure is thrown as is).
  for (let attempt = 1; ; attempt++) {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: { type: 'existing-path', path: path.join(repoRoot, 'scripts/temporal-test-server.sh') } },
      });
    } catch (error) {
      if (attempt === START_ATTEMPTS || !(error instanceof Error) || !error.message.includes('did not start within')) throw error;
      console.warn(`[journey tests] the Java test server did not start in time (attempt ${attempt}/${START_ATTEMPTS}); trying again`);
    }
  }
}

const START_ATTEMPTS = 3;
