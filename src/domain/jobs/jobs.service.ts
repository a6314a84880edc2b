import { jobStore } from '../../db/job-store';
import type { JobStore } from '../ports';
import type { JobFinalListener } from '../../db/job-final-listener';
import { createJobStaging, type JobStagingDeps } from './job-staging.service';
import { createJobQueries } from './job-queries.service';
import { createJobCompletion } from './job-completion.service';
import { createJobCancellation } from './job-cancellation.service';

/** The jobs service: the start of jobs, their reads, the handler's completion and the caller's cancellation. */
export function createJobsService(
  deps: JobStagingDeps & {
    /** Longest a completion waits for the workflow's answer before a 503. */
    completionWaitSeconds: number;
    /** Wakes `?wait=` reads when a job reaches a final status; without it a read answers at once. */
    finals?: JobFinalListener;
    /** Where reads and the completion find jobs; Postgres through `knex` when omitted (unit tests pass one in memory). */
    store?: JobStore;
  },
) {
  const withStore = { ...deps, store: deps.store ?? jobStore(deps.knex) };
  return {
    ...createJobStaging(withStore),
    ...createJobQueries(withStore),
    ...createJobCompletion(withStore),
    ...createJobCancellation(withStore),
  };
}

export type JobsService = ReturnType<typeof createJobsService>;
