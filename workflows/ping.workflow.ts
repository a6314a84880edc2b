import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { ping } = proxyActivities<Activities>({ startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 3 } });

/** A round trip through the worker and the database: the foundation smoke test runs it. */
export async function pingWorkflow(name: string): Promise<string> {
  return ping(name);
}
