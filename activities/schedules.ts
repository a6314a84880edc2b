import { Context } from '@temporalio/activity';
import type { FireOutcome, ScheduleFires } from '../src/domain/schedules';
import type { JobGateway } from '../src/domain/ports';
import { classifiedActivities } from './classified';

/** Longest one attempt of `awaitScheduledJob` waits; the workflow asks again (its start-to-close is 6 minutes). */
const AWAIT_MS = 5 * 60_000;

/** The fire workflow's side effects (src/domain/schedules/schedule-fires.ts), closing over the worker's dependencies. */
export function createScheduleActivities(deps: {
  fires: Pick<ScheduleFires, 'fire' | 'cancelJob' | 'awaitFinal'>;
  gateway: Pick<JobGateway, 'cancel'>;
}) {
  const { fires } = deps;
  const decided = classifiedActivities({
    // A fire that finds its tenant's bucket empty waits for the next token (classified as TenantRateLimited).
    fireSchedule(input: { scheduleId: string; nominalTime: string; workflowId: string }): Promise<FireOutcome> {
      return fires.fire(input.scheduleId, new Date(input.nominalTime), input.workflowId);
    },

    /** Records the job cancelled and cancels its workflow, like POST /v2/jobs/{job_id}/cancel. */
    async cancelScheduledJob(jobId: string, reason: string): Promise<void> {
      await fires.cancelJob(jobId, reason);
      await deps.gateway.cancel(jobId);
    },
  });
  return {
    ...decided,
    /**
     * The job's final status, or null after AWAIT_MS: waits on Temporal for the close of the job's workflow, then
     * reads the status from the job's row (ScheduleFires.awaitFinal). Heartbeats between Temporal's answers, so a
     * cancellation of the fire reaches it; the cancellation aborts the wait's call to Temporal and is thrown as it is,
     * not classified (the workflow tells a cancellation by its type).
     */
    async awaitScheduledJob(jobId: string): Promise<string | null> {
      const context = Context.current();
      const status = await Promise.race([
        fires.awaitFinal(jobId, AWAIT_MS, () => context.heartbeat(), context.cancellationSignal),
        context.cancelled,
      ]);
      return status ?? null;
    },
  };
}

export type ScheduleActivities = ReturnType<typeof createScheduleActivities>;
