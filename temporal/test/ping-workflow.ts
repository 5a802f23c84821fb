import { proxyActivities } from '@temporalio/workflow';
import type { PingActivities } from '../activities/ping';

const { ping } = proxyActivities<PingActivities>({ startToCloseTimeout: '10 seconds' });

/** Smallest end-to-end proof that the api can start a run and a worker executes it. */
export async function pingWorkflow(name: string): Promise<string> {
  return ping(name);
}
