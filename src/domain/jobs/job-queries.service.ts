import type { Knex } from 'knex';
import * as repo from '../../db/jobs.repository';
import type { JobFinalListener } from '../../db/job-final-listener';
import type { Principal } from '../../auth/principal';
import { canSeeJob, visibleTenants } from '../../auth/access';
import { mapPage, type PageRequest } from '../../paging';
import { InvalidInputError } from '../../errors';
import type { JobGateway, JobStore } from '../ports';
import { requireClient, toLineage } from '../common';
import { jobPresenter, visibleById, visibleJob } from './job-access';

/** The most jobs a lineage answer holds; a larger tree is cut (shallowest jobs first) and says `truncated`. */
export const MAX_LINEAGE_JOBS = 500;

/** The search filters of GET /v2/jobs and the tenant job list, as the query gives them. */
export type JobSearchQuery = Omit<repo.JobFilter, 'visible_client_ids' | 'created_after' | 'created_before'> & {
  created_after?: string;
  created_before?: string;
};

/** A date-time filter (its RFC 3339 form checked by the request validator) within what Postgres and Date both hold. */
function instant(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  // The format admits a leap second (23:59:60), which Date cannot hold.
  if (Number.isNaN(date.getTime())) throw new InvalidInputError(`${name} must be an RFC 3339 date-time such as 2026-12-10T00:00:00Z`);
  if (date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) throw new InvalidInputError(`${name} must be in years 0001-9999`);
  return date;
}

/** The creation window of a job search, as Dates. */
function createdWindow(query: Pick<JobSearchQuery, 'created_after' | 'created_before'>) {
  return { created_after: instant('created_after', query.created_after), created_before: instant('created_before', query.created_before) };
}

/** The job once it is final, or as it is when `seconds` pass: woken by the final-status notification, never polled. */
async function awaitFinal(knex: Knex, finals: JobFinalListener | undefined, job: repo.JobView, seconds: number): Promise<repo.JobView> {
  if (seconds <= 0 || !finals || repo.TERMINAL_JOB_STATUSES.includes(job.status)) return job;
  let current = job;
  await finals.waitFor(job.job_id, seconds * 1000, async () => {
    current = (await repo.findJob(knex, job.job_id)) ?? current;
    return repo.TERMINAL_JOB_STATUSES.includes(current.status);
  });
  return current;
}

/** The reads of jobs: one job (with an optional wait for its final status), lists, the search and the lineage. */
export function createJobQueries(deps: { knex: Knex; gateway: JobGateway; store: JobStore; finals?: JobFinalListener }) {
  const { knex, store } = deps;
  const present = jobPresenter(deps.gateway);
  const settled = (job: repo.JobView, seconds: number) => awaitFinal(knex, deps.finals, job, seconds);

  return {
    /** A job; with `waitFor` seconds, answered as soon as it is final, or as it is when the time runs out. */
    async get(principal: Principal, modelId: string, version: string, jobId: string, waitFor = 0) {
      return present(await settled(await visibleJob(store, principal, modelId, version, jobId), waitFor));
    },

    /** A job by id alone, with the same tenant check as the model-scoped read (and the same wait). */
    async getById(principal: Principal, jobId: string, waitFor = 0) {
      return present(await settled(await visibleById(store, principal, jobId), waitFor));
    },

    /** The job row the caller may see, or 404 (a job of another tenant answers like a missing one). */
    findVisible: (principal: Principal, jobId: string): Promise<repo.JobView> => visibleById(store, principal, jobId),

    /** A model version's jobs, narrowed like the job search: a caller bound to tenants sees only theirs. */
    async listForVersion(
      principal: Principal,
      filter: Pick<repo.JobFilter, 'model_id' | 'model_version' | 'status' | 'job_type'>,
      page: PageRequest,
    ) {
      return mapPage(await repo.listJobs(knex, { ...filter, visible_client_ids: visibleTenants(principal) }, page), present);
    },

    /** Every job the caller may see that matches the filters: platform callers all tenants', others their tenants'. */
    async search(principal: Principal, query: JobSearchQuery, page: PageRequest) {
      const filter: repo.JobFilter = {
        ...query,
        visible_client_ids: visibleTenants(principal),
        ...createdWindow(query),
      };
      return mapPage(await repo.listJobs(knex, filter, page), present);
    },

    async listForClient(clientId: string, query: Omit<JobSearchQuery, 'client_id'>, page: PageRequest) {
      await requireClient(knex, clientId);
      const filter: repo.JobFilter = {
        ...query,
        client_id: clientId,
        ...createdWindow(query),
      };
      return mapPage(await repo.listJobs(knex, filter, page), present);
    },

    /** The cascade tree the job belongs to: its root and every descendant, at most MAX_LINEAGE_JOBS. */
    async lineage(principal: Principal, jobId: string) {
      const job = await visibleById(store, principal, jobId);
      const rows = await repo.lineage(knex, job.root_job_id, MAX_LINEAGE_JOBS + 1);
      // Cascades inherit their source's tenant; the filter keeps that true for what is shown even if a row broke it.
      const visible = rows.slice(0, MAX_LINEAGE_JOBS).filter((r) => canSeeJob(principal, r.client_id));
      return toLineage(job, visible, { truncated: rows.length > MAX_LINEAGE_JOBS, maxJobs: MAX_LINEAGE_JOBS });
    },
  };
}
