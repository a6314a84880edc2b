import { proxyActivities, workflowInfo, ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import type { ScheduleActivities } from '../activities/schedules';
import { SCHEDULED_JOB_FAILED, SCHEDULED_START_TIME, ScheduledJobInput, ScheduledRunResult } from './schedule-definitions';

// Deciding the fire: a few Postgres statements and one workflow start, retried through outages like the job's steps.
const { fireSchedule, cancelScheduledJob } = proxyActivities<ScheduleActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
// Waiting for the job: each attempt waits up to 5 minutes for the job to be final (on Temporal's wait for the close of
// the job's workflow, which answers about every 20 s while it runs) and heartbeats between those answers, so a lost
// worker is noticed within the heartbeat timeout and a cancellation (overlap `cancel_other`) reaches it.
const { awaitScheduledJob } = proxyActivities<ScheduleActivities>({
  startToCloseTimeout: '6 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * One fire of a schedule (docs/schedules.md): starts the job through the service's job path, exactly once per
 * nominal time, and stays open until the job is final, so the schedule's overlap policy sees a running fire while
 * its job runs. A job that ends other than in success fails the fire (pause-on-failure acts on that); a cancelled
 * fire (overlap `cancel_other`) cancels its job.
 */
export async function scheduledJobWorkflow(input: ScheduledJobInput): Promise<ScheduledRunResult> {
  const info = workflowInfo();
  const nominal = info.typedSearchAttributes.get(SCHEDULED_START_TIME);
  if (!nominal) throw ApplicationFailure.create({ message: 'a scheduled job runs only when a schedule starts it', nonRetryable: true });
  const fired = await fireSchedule({ scheduleId: input.scheduleId, nominalTime: nominal.toISOString(), workflowId: info.workflowId });
  if (fired.outcome !== 'started') return fired;
  const { jobId } = fired;
  let status: string | undefined;
  try {
    while (status === undefined) status = (await awaitScheduledJob(jobId)) ?? undefined;
  } catch (err) {
    if (!isCancellation(err)) throw err;
    await CancellationScope.nonCancellable(() =>
      cancelScheduledJob(jobId, 'its schedule fire was cancelled (overlap policy cancel_other, or in Temporal)'),
    );
    throw err;
  }
  if (status !== 'success') {
    throw ApplicationFailure.create({ type: SCHEDULED_JOB_FAILED, message: `job ${jobId} ended ${status}`, nonRetryable: true });
  }
  return { outcome: 'started', jobId, status };
}
