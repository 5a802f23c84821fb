import { sleep } from '@temporalio/workflow';

/** Sleeps for the given duration and returns; used to prove time skipping works. */
export async function sleeperWorkflow(duration: string): Promise<string> {
  await sleep(duration);
  return 'woke';
}
