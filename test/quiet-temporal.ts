import { IllegalStateError } from '@temporalio/common';
import { DefaultLogger, Runtime } from '@temporalio/worker';

/**
 * vitest setup file (workflow and integration projects): the Temporal SDK logs worker state
 * changes and test-server start-up at INFO straight to stderr, hundreds of lines a run. Tests
 * keep its warnings and errors only. The Runtime is installed once per process.
 */
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch (error) {
  // a test file that builds its own worker may have installed it first; anything else is real
  if (!(error instanceof IllegalStateError)) throw error;
}
