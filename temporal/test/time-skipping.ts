import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * A time-skipping environment on the Temporal Java test server, started through
 * scripts/temporal-test-server.sh (fetched from Maven Central by scripts/stack.sh): the SDK's
 * own download of the server cannot work on machines without general internet access.
 */
export function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: path.join(repoRoot, 'scripts/temporal-test-server.sh') } },
  });
}

/** The workflow bundle the tests run: the same entry the worker uses. */
export const workflowsPath = path.join(repoRoot, 'temporal/workflows/index.ts');
