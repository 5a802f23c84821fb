import type { Duration } from '@temporalio/common';
import { sleep } from '@temporalio/workflow';

/** Test-only: sleeps for the given duration and returns, to prove time skipping works (sleeper.wf.test.ts). */
export async function sleeperWorkflow(duration: Duration): Promise<string> {
  await sleep(duration);
  return 'woke';
}
