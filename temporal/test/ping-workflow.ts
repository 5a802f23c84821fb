import { proxyActivities } from '@temporalio/workflow';
import type { PingActivities } from './ping-activities';

const { ping } = proxyActivities<PingActivities>({ startToCloseTimeout: '10 seconds' });

/** Test-only: the smallest proof that the api's client starts a run a worker executes (ping.int.test.ts). */
export async function pingWorkflow(name: string): Promise<string> {
  return ping(name);
}
