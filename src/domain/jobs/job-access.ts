import type { JobView } from '../../db/jobs.repository';
import type { Principal } from '../../auth/principal';
import { canSeeJob } from '../../auth/access';
import { ForbiddenError, NotFoundError } from '../../errors';
import { workflowIdFor, type JobGateway, type JobStore } from '../ports';
import { toJob } from '../common';

/** A job as the API answers it, with its workflow id and Web UI link from the gateway. */
export function jobPresenter(gateway: JobGateway): (row: JobView) => ReturnType<typeof toJob> {
  return (row) => toJob(row, { workflowId: workflowIdFor, uiUrl: (id) => gateway.uiUrl(id) });
}

/** The job under a model version that the caller may reach, or 404; a job token reaches its own job only (403). */
export async function visibleJob(store: JobStore, principal: Principal, modelId: string, version: string, jobId: string): Promise<JobView> {
  // A job token names its job: any other is refused before a read (its holder learns nothing of it).
  if (principal.kind === 'job' && principal.jobId !== jobId) {
    throw new ForbiddenError(`this job token completes job ${principal.jobId} only`);
  }
  const job = await store.findJob(jobId);
  const reaches = principal.kind === 'job' || canSeeJob(principal, job?.client_id ?? null);
  // Jobs of other tenants answer 404 like missing ones, so their ids cannot be probed.
  if (!job || job.model_id !== modelId || job.model_version !== version || !reaches) {
    throw new NotFoundError(`job ${jobId} not found for model ${modelId} version ${version}`);
  }
  return job;
}

/** The job row the caller may see, or 404 (a job of another tenant answers like a missing one). */
export async function visibleById(store: JobStore, principal: Principal, jobId: string): Promise<JobView> {
  const job = await store.findJob(jobId);
  if (!job || !canSeeJob(principal, job.client_id)) throw new NotFoundError(`job ${jobId} not found`);
  return job;
}
