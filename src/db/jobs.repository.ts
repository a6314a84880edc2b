import { Db } from './types';
import type { CompletionResult, TriggeredEvent } from '../../workflows/definitions';

export type { CompletionResult, TriggeredEvent };
import { paginate, PageRequest, Page } from './pagination';

export type JobStatus = 'pending' | 'running' | 'success' | 'failure' | 'timed_out';
export type JobType = 'inference' | 'training';
export type JobTrigger = 'service_init' | 'service_update' | 'direct' | 'assignment' | 'cascade';
export const TERMINAL_JOB_STATUSES: readonly JobStatus[] = ['success', 'failure', 'timed_out'];

export interface JobRow {
  job_id: string;
  model_id: string;
  model_version: string;
  job_type: JobType;
  trigger: JobTrigger;
  status: JobStatus;
  assignment_id: string | null;
  client_id: string | null;
  domain_uuid: string | null;
  service_uuid: string | null;
  source_job_id: string | null;
  subscription_id: string | null;
  cascade_depth: number;
  input: Record<string, unknown> | null;
  output: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
  metadata: Record<string, unknown>;
  completion_result: CompletionResult | null;
  workflow_run_id: string | null;
  idempotency_key: string | null;
  idempotency_owner: string | null;
  /** Hash of the request that used the key: the same key with another request is refused. */
  idempotency_fingerprint: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  updated_at: Date;
}

/** A job with the public ids of its domain and service, joined for responses and workflow search attributes. */
export interface JobView extends JobRow {
  domain_id: string | null;
  service_id: string | null;
}

export type NewJob = Pick<JobRow, 'job_id' | 'model_id' | 'model_version' | 'job_type' | 'trigger'> &
  Partial<
    Pick<
      JobRow,
      | 'assignment_id'
      | 'client_id'
      | 'domain_uuid'
      | 'service_uuid'
      | 'source_job_id'
      | 'subscription_id'
      | 'cascade_depth'
      | 'input'
      | 'metadata'
      | 'idempotency_key'
      | 'idempotency_owner'
      | 'idempotency_fingerprint'
    >
  >;

function jobViews(db: Db) {
  return db('model_jobs')
    .leftJoin('domains', 'domains.domain_uuid', 'model_jobs.domain_uuid')
    .leftJoin('services', 'services.service_uuid', 'model_jobs.service_uuid')
    .select('model_jobs.*', 'domains.domain_id', 'services.service_id');
}

/** Inserts a job; with an idempotency key already used by the same owner, returns the first job instead. */
export async function insertJob(db: Db, job: NewJob): Promise<{ row: JobRow; created: boolean }> {
  const values = {
    ...job,
    input: job.input === undefined || job.input === null ? null : JSON.stringify(job.input),
    metadata: JSON.stringify(job.metadata ?? {}),
  };
  // Any unique key (idempotency key, cascade of one subscription for one source job) means "already created".
  const insert = db('model_jobs').insert(values);
  const rows: JobRow[] =
    job.idempotency_key || (job.subscription_id && job.source_job_id)
      ? await insert.onConflict().ignore().returning('*')
      : await insert.returning('*');
  if (rows[0]) return { row: rows[0], created: true };
  const existing = job.idempotency_key
    ? await findByIdempotencyKey(db, job.idempotency_owner!, job.idempotency_key)
    : await db('model_jobs').where({ source_job_id: job.source_job_id, subscription_id: job.subscription_id }).first();
  return { row: existing!, created: false };
}

export async function findByIdempotencyKey(db: Db, owner: string, key: string): Promise<JobView | undefined> {
  return jobViews(db).where({ 'model_jobs.idempotency_owner': owner, 'model_jobs.idempotency_key': key }).first();
}

export async function findJob(db: Db, jobId: string): Promise<JobView | undefined> {
  return jobViews(db).where('model_jobs.job_id', jobId).first();
}

/**
 * Claims a pending job for one workflow run and marks it running. True when `runId` owns the job (now, or from
 * an earlier attempt of the same activity); false when another run claimed it or it is no longer pending.
 */
export async function claimForRun(db: Db, jobId: string, runId: string): Promise<boolean> {
  const claimed = await db('model_jobs')
    .where({ job_id: jobId })
    .andWhere((q) => q.where('status', 'pending').orWhere('workflow_run_id', runId))
    .update({
      status: db.raw(`case when status = 'pending' then 'running' else status end`),
      workflow_run_id: runId,
      started_at: db.raw('coalesce(started_at, now())'),
      updated_at: db.fn.now(),
    });
  return claimed > 0;
}

/** Records the outcome once; returns false when the job had already finished. */
export async function finishJob(db: Db, jobId: string, status: JobStatus, output: unknown, error: unknown): Promise<boolean> {
  const n = await db('model_jobs')
    .where({ job_id: jobId })
    .whereNotIn('status', TERMINAL_JOB_STATUSES as JobStatus[])
    .update({
      status,
      output: output === undefined ? null : JSON.stringify(output),
      error: error === undefined ? null : JSON.stringify(error),
      completed_at: db.fn.now(),
      updated_at: db.fn.now(),
    });
  return n > 0;
}

export async function storeCompletionResult(db: Db, jobId: string, result: CompletionResult): Promise<void> {
  await db('model_jobs')
    .where({ job_id: jobId })
    .update({ completion_result: JSON.stringify(result), updated_at: db.fn.now() });
}

/** Whether a newer inference job exists for the service: an older job's outcome then no longer sets its status. */
export async function hasNewerServiceJob(db: Db, job: JobRow): Promise<boolean> {
  if (!job.service_uuid) return false;
  const newer = await db('model_jobs')
    .where({ service_uuid: job.service_uuid, job_type: 'inference' })
    .where((q) =>
      q.where('created_at', '>', job.created_at).orWhere((q2) => q2.where('created_at', job.created_at).where('job_id', '>', job.job_id)),
    )
    .first('job_id');
  return Boolean(newer);
}

/** Jobs whose workflow may never have started (the API died between commit and start). */
export async function staleOrphans(db: Db, olderThanSeconds: number, limit = 100): Promise<JobView[]> {
  return jobViews(db)
    .where('model_jobs.status', 'pending')
    .where('model_jobs.created_at', '<', db.raw(`now() - make_interval(secs => ?)`, [olderThanSeconds]))
    .orderBy('model_jobs.created_at')
    .limit(limit);
}

export interface JobFilter {
  client_id?: string;
  model_id?: string;
  model_version?: string;
  status?: string;
  job_type?: string;
  service_id?: string;
  /** The assignment revision the job ran under. */
  assignment_id?: string;
}

export async function listJobs(db: Db, filter: JobFilter, page: PageRequest): Promise<Page<JobView>> {
  const q = jobViews(db);
  for (const key of ['client_id', 'model_id', 'model_version', 'status', 'job_type', 'assignment_id'] as const) {
    if (filter[key]) q.where(`model_jobs.${key}`, filter[key]);
  }
  if (filter.service_id) q.where('services.service_id', filter.service_id);
  return paginate<JobView>(q, page, 'job_id', 'model_jobs');
}
