import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { JobView } from '../db/jobs.repository';
import { WorkflowStartRefused, type JobGateway } from './ports/job-gateway';
import type { ServiceMetrics } from '../observability/metrics';
import type { UserSchemaCompiler } from './json-schemas';
import { markStartRefused } from './job-outcomes';

export interface StarterDeps {
  knex: Knex;
  gateway: JobGateway;
  schemas: UserSchemaCompiler;
  log: Logger;
  metrics?: ServiceMetrics;
}

/** What became of one start: its workflow runs (`started`, or already did), it is failed, or it waits for the reconciler. */
export type StartOutcome = 'started' | 'existing' | 'refused' | 'deferred';

/**
 * One job's workflow start that never throws: a start Temporal refuses for good marks the job failed with the
 * reason (`start_refused`); any other failure leaves the row `pending` for the reconciler.
 */
export function jobStarter(deps: StarterDeps): (job: JobView) => Promise<StartOutcome> {
  const { knex, gateway, log } = deps;
  return async (job) => {
    try {
      return await gateway.launch(job);
    } catch (err) {
      if (!(err instanceof WorkflowStartRefused)) {
        log.warn({ err, jobId: job.job_id }, 'workflow start failed; the reconciler will retry');
        return 'deferred';
      }
      log.error({ err, jobId: job.job_id }, 'Temporal refused the workflow start; the job is marked failed');
      await markStartRefused(knex, deps.schemas, log, job.job_id, err, deps.metrics).catch((cause: unknown) =>
        log.error({ err: cause, jobId: job.job_id }, 'could not mark the refused job failed'),
      );
      return 'refused';
    }
  };
}
