import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Outbox } from '../webhooks';
import * as repo from '../../db/jobs.repository';
import type { Principal } from '../../auth/principal';
import { ConflictError, ForbiddenError, UnavailableError } from '../../errors';
import type { JobGateway, JobStore } from '../ports';
import { recordCancellation } from './run/job-outcomes';
import { jobPresenter, visibleById } from './job-access';

/** Who did it, as recorded on the job: `user:<username>` or `client:<client_id>`. */
function actor(principal: Principal): string {
  if (principal.kind === 'job') return principal.subject;
  return principal.kind === 'human' ? `user:${principal.username}` : `client:${principal.clientId}`;
}

/** The caller's cancellation of a job: its record first, then its workflow's. */
export function createJobCancellation(deps: { knex: Knex; gateway: JobGateway; store: JobStore; log: Logger; outbox: Outbox }) {
  const { knex, gateway, store, log } = deps;
  const present = jobPresenter(gateway);

  return {
    /**
     * Cancels a pending or running job: records `cancelled` (who, why; the service or version moves to `failed`)
     * and then cancels its workflow, which stops an ECS task it started and fires nothing. A repeat returns the
     * cancelled job (and asks Temporal again); a job already final is a 409.
     */
    async cancel(principal: Principal, jobId: string, reason: string | undefined) {
      const job = await visibleById(store, principal, jobId);
      if (job.job_type === 'training' && !principal.permissions.has('train_model')) {
        throw new ForbiddenError('cancelling a training job needs permission train_model');
      }
      if (job.status !== 'cancelled') {
        const changed = await recordCancellation(deps, jobId, actor(principal), reason ?? null);
        if (!changed) {
          const current = (await repo.findJob(knex, jobId))!;
          if (current.status !== 'cancelled') throw new ConflictError(`job ${jobId} is already final: ${current.status}`);
        }
      }
      try {
        await gateway.cancel(jobId);
      } catch (err) {
        log.warn({ err, jobId }, 'the cancellation is recorded but Temporal did not take the workflow cancel');
        throw new UnavailableError(
          `job ${jobId} is cancelled (no completion is accepted), but its workflow could not be told: repeat the cancel to stop its task`,
          { cause: err },
        );
      }
      return present((await repo.findJob(knex, jobId))!);
    },
  };
}
