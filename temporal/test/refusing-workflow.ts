import { proxyActivities } from '@temporalio/workflow';

export interface RefusingActivities {
  /** fails, quoting the address as a provider's answer would */
  refuse(address: string): Promise<void>;
}

const { refuse } = proxyActivities<RefusingActivities>({ startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 1 } });

/** Test-only: a run that fails because its activity did (temporal-history.security.int.test.ts). */
export async function refusingWorkflow(address: string): Promise<void> {
  await refuse(address);
}
