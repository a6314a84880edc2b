import { ApplicationFailure, Context } from '@temporalio/activity';
import { RateLimitedError } from '../src/errors';
import type { FireOutcome, ScheduleFires } from '../src/domain/schedule-fires';
import type { JobGateway } from '../src/domain/ports/job-gateway';
import { classifiedActivities } from './classified';

/** The failure type of a fire that waits for its tenant's job bucket (retried when the next token is due). */
export const TENANT_RATE_LIMITED = 'TenantRateLimited';

/** Longest one attempt of `awaitScheduledJob` waits; the workflow asks again (its start-to-close is 6 minutes). */
const AWAIT_MS = 5 * 60_000;

/** The fire workflow's side effects (src/domain/schedule-fires.ts), closing over the worker's dependencies. */
export function createScheduleActivities(deps: {
  fires: Pick<ScheduleFires, 'fire' | 'cancelJob' | 'awaitFinal'>;
  gateway: Pick<JobGateway, 'cancel'>;
}) {
  const { fires } = deps;
  const decided = classifiedActivities({
    async fireSchedule(input: { scheduleId: string; nominalTime: string; workflowId: string }): Promise<FireOutcome> {
      try {
        return await fires.fire(input.scheduleId, new Date(input.nominalTime), input.workflowId);
      } catch (err) {
        // The tenant's bucket is empty: the fire waits for its next token, so fires run at the tenant's rate and none is lost.
        if (!(err instanceof RateLimitedError)) throw err;
        throw ApplicationFailure.create({
          type: TENANT_RATE_LIMITED,
          message: err.message,
          nextRetryDelay: `${err.decision.resetSeconds} seconds`,
        });
      }
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
     * The job's final status, or null after AWAIT_MS; heartbeats, so a cancellation of the fire reaches it (and is
     * thrown as it is, not classified: the workflow tells a cancellation by its type).
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
