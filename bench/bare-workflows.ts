import { proxyActivities, defineUpdate, setHandler, condition } from '@temporalio/workflow';

/**
 * The bare baselines' workflow (bench only): the shape of a job with nothing of the service in it.
 * `job`: one activity (which, like a handler, reports back with the `finish` update), then the update completes it.
 * `park`: waits for the update alone, for the bare update round trip.
 */
export const finishUpdate = defineUpdate<string, [Record<string, unknown>]>('finish');

export interface BareActivities {
  work(workflowId: string): Promise<void>;
}

const { work } = proxyActivities<BareActivities>({ startToCloseTimeout: '10 seconds' });

export async function bareJob(mode: 'job' | 'park', workflowId: string): Promise<string> {
  let report: Record<string, unknown> | undefined;
  setHandler(finishUpdate, async (r) => {
    report = r;
    return 'done';
  });
  if (mode === 'job') await work(workflowId);
  await condition(() => report !== undefined);
  return 'ok';
}
