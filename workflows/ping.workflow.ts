import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { ping } = proxyActivities<Activities>({ startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 3 } });

/** A round trip through the worker and the database: used by smoke tests and `npm start`'s self-check. */
export async function pingWorkflow(name: string): Promise<string> {
  return ping(name);
}
