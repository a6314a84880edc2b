import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Outbox } from '../../webhooks';
import type { JobView } from '../../../db/jobs.repository';
import { WorkflowStartRefused, type JobGateway } from '../../ports';
import type { ServiceMetrics } from '../../../observability/metrics';
import type { UserSchemaCompiler } from '../../common';
import { markStartRefused } from '../run/job-outcomes';

export interface StarterDeps {
  knex: Knex;
  gateway: JobGateway;
  schemas: UserSchemaCompiler;
  log: Logger;
  metrics?: ServiceMetrics;
  /** Where a refused start's `job.failed` event is written. */
  outbox: Outbox;
}

/** What became of one start: its workflow runs (`started`, or already did), it is failed, or it waits for the reconciler. */
export type StartOutcome = 'started' | 'existing' | 'refused' | 'deferred';

/**
 * The one start of a committed job's workflow, for every path that starts jobs (the API's start pool, the reconciler,
 * the release of held jobs, cascade and schedule launches). A start Temporal refuses for good marks the job failed
 * with the reason (`start_refused`). Any other failure, with `transient: 'defer'` (the default), leaves the row
 * `pending` for the reconciler and never throws; with `'throw'` it is thrown, for an activity to retry.
 */
export function jobStarter(deps: StarterDeps, options: { transient?: 'defer' | 'throw' } = {}): (job: JobView) => Promise<StartOutcome> {
  const { gateway, log } = deps;
  const rethrow = options.transient === 'throw';
  return async (job) => {
    try {
      return await gateway.launch(job);
    } catch (err) {
      if (!(err instanceof WorkflowStartRefused)) {
        if (rethrow) throw err;
        log.warn({ err, jobId: job.job_id }, 'workflow start failed; the reconciler will retry');
        return 'deferred';
      }
      log.error({ err, jobId: job.job_id, trigger: job.trigger }, 'Temporal refused the workflow start; the job is marked failed');
      const marking = markStartRefused(deps, job.job_id, err);
      // An activity retries a marking that failed; elsewhere the reconciler meets the row again.
      await (rethrow
        ? marking
        : marking.catch((cause: unknown) => log.error({ err: cause, jobId: job.job_id }, 'could not mark the refused job failed')));
      return 'refused';
    }
  };
}
