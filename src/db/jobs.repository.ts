import { Db, table } from './types';
import type { Handlers, JobStatus, JobTrigger, JobType, LimitsOverride } from '../shapes';
import type { HandlerContracts } from './models.repository';
import type { CompletionResult, TriggeredEvent } from '../../workflows/definitions';
import type { JobRow, JobView } from '../domain/jobs';
import { paginate } from './pagination';
import { PageRequest, Page } from '../paging';

// The job records are the domain's (src/domain/jobs/job.view.ts); the repository returns them.
export type { CompletionResult, JobRow, JobView, TriggeredEvent };

const jobs = (db: Db) => table<JobRow>(db, 'model_jobs');

export type { JobStatus, JobTrigger, JobType };
export const TERMINAL_JOB_STATUSES: readonly JobStatus[] = ['success', 'failure', 'timed_out', 'cancelled'];

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
      | 'root_job_id'
      | 'rerun_of'
      | 'schedule_id'
      | 'scheduled_at'
      | 'input'
      | 'metadata'
      | 'idempotency_key'
      | 'idempotency_owner'
      | 'idempotency_fingerprint'
      | 'priority'
      | 'queued_reason'
    >
  >;

function jobViews(db: Db) {
  return jobs(db)
    .leftJoin('domains', 'domains.domain_uuid', 'model_jobs.domain_uuid')
    .leftJoin('services', 'services.service_uuid', 'model_jobs.service_uuid')
    .leftJoin('clients', 'clients.client_id', 'model_jobs.client_id')
    .select<JobView[]>('model_jobs.*', 'domains.domain_id', 'services.service_id', 'clients.limits as tenant_limits');
}

/** Inserts a job; with an idempotency key already used by the same owner, returns the first job instead. */
export async function insertJob(db: Db, job: NewJob): Promise<{ row: JobView; created: boolean }> {
  const values = {
    ...job,
    input: job.input === undefined || job.input === null ? null : JSON.stringify(job.input),
    metadata: JSON.stringify(job.metadata ?? {}),
  };
  // Any unique key (idempotency key, cascade of one subscription for one source job) means "already created".
  const insert = jobs(db).insert(values);
  const keyed = job.idempotency_key || (job.subscription_id && job.source_job_id);
  // The insert and the public ids of its domain and service in one statement (a data-modifying CTE).
  const rows: JobView[] = await db
    .with('j', (keyed ? insert.onConflict().ignore() : insert).returning('*'))
    .from('j')
    .leftJoin('domains', 'domains.domain_uuid', 'j.domain_uuid')
    .leftJoin('services', 'services.service_uuid', 'j.service_uuid')
    .leftJoin('clients', 'clients.client_id', 'j.client_id')
    .select('j.*', 'domains.domain_id', 'services.service_id', 'clients.limits as tenant_limits');
  if (rows[0]) return { row: rows[0], created: true };
  const existing = job.idempotency_key
    ? await findByIdempotencyKey(db, job.idempotency_owner!, job.idempotency_key)
    : await jobViews(db)
        .where({ 'model_jobs.source_job_id': job.source_job_id, 'model_jobs.subscription_id': job.subscription_id })
        .first();
  return { row: existing!, created: false };
}

/** A job with its model's handler contracts (null when the model has none or is gone), in one statement: what the outcome step reads. */
export async function findJobWithContracts(
  db: Db,
  jobId: string,
): Promise<(JobView & { handler_contracts: HandlerContracts | null }) | undefined> {
  return jobViews(db)
    .leftJoin('models', 'models.id', 'model_jobs.model_id')
    .select<(JobView & { handler_contracts: HandlerContracts | null })[]>('models.handler_contracts')
    .where('model_jobs.job_id', jobId)
    .first();
}

export async function findByIdempotencyKey(db: Db, owner: string, key: string): Promise<JobView | undefined> {
  return jobViews(db).where({ 'model_jobs.idempotency_owner': owner, 'model_jobs.idempotency_key': key }).first();
}

export async function findJob(db: Db, jobId: string): Promise<JobView | undefined> {
  return jobViews(db).where('model_jobs.job_id', jobId).first();
}

/**
 * A job with its model's handlers (null when the model is gone) and its tenant's limits override, in one statement:
 * what the dispatch step reads.
 */
export async function findJobWithHandlers(
  db: Db,
  jobId: string,
): Promise<(JobRow & { handlers: Handlers | null; tenant_limits: LimitsOverride | null }) | undefined> {
  return jobs(db)
    .leftJoin('models', 'models.id', 'model_jobs.model_id')
    .leftJoin('clients', 'clients.client_id', 'model_jobs.client_id')
    .where('model_jobs.job_id', jobId)
    .first('model_jobs.*', 'models.handlers', 'clients.limits as tenant_limits');
}

/**
 * Claims a pending job for one workflow run and marks it running. True when `runId` owns the job (now, or from
 * an earlier attempt of the same activity); false when another run claimed it or it is no longer pending.
 */
export async function claimForRun(db: Db, jobId: string, runId: string): Promise<boolean> {
  const claimed = await jobs(db)
    .where({ job_id: jobId })
    .andWhere((q) => q.where('status', 'pending').orWhere('workflow_run_id', runId))
    .update({
      status: db.raw(`case when status = 'pending' then 'running' else status end`),
      workflow_run_id: runId,
      // A workflow that runs has its slot, whatever a late decision to hold it said.
      queued_reason: null,
      started_at: db.raw('coalesce(started_at, now())'),
      updated_at: db.fn.now(),
    });
  return claimed > 0;
}

/**
 * Records the outcome once (with the completion's answer, when it is known with the outcome); returns the finished
 * row, or undefined when the job had already finished.
 */
export async function writeFinalStatus(
  db: Db,
  jobId: string,
  status: JobStatus,
  output: unknown,
  error: unknown,
  completionResult?: CompletionResult,
): Promise<JobRow | undefined> {
  const [row]: JobRow[] = await jobs(db)
    .where({ job_id: jobId })
    .whereNotIn('status', TERMINAL_JOB_STATUSES as JobStatus[])
    .update({
      status,
      output: output === undefined ? null : JSON.stringify(output),
      error: error === undefined ? null : JSON.stringify(error),
      ...(completionResult ? { completion_result: JSON.stringify(completionResult) } : {}),
      completed_at: db.fn.now(),
      updated_at: db.fn.now(),
    })
    .returning('*');
  return row;
}

/** Inserts cascade jobs in one statement; one already created for its (source job, subscription) is kept as it is. */
export async function insertCascadeJobs(db: Db, rows: NewJob[]): Promise<void> {
  if (rows.length === 0) return;
  await jobs(db)
    .insert(rows.map((job) => ({ ...job, input: JSON.stringify(job.input ?? {}), metadata: JSON.stringify(job.metadata ?? {}) })))
    .onConflict()
    .ignore();
}

/** Jobs by id, with their public domain and service ids. */
export async function findJobs(db: Db, jobIds: string[]): Promise<JobView[]> {
  return jobViews(db).whereIn('model_jobs.job_id', jobIds);
}

export async function storeCompletionResult(db: Db, jobId: string, result: CompletionResult): Promise<void> {
  await jobs(db)
    .where({ job_id: jobId })
    .update({ completion_result: JSON.stringify(result), updated_at: db.fn.now() });
}

/** Where a batch of stale orphans ended: the next batch starts after it. */
export type OrphanCursor = Pick<JobRow, 'created_at' | 'job_id'> & { turn: number };

/**
 * Jobs whose workflow may never have started (the API died between commit and start), held jobs aside, a batch
 * `after` the last of a previous one. Tenants take turns: each tenant's oldest first, then each tenant's second, ...,
 * so one tenant's thousand orphans do not fill the batch while another's wait for later batches.
 */
export async function staleOrphans(
  db: Db,
  olderThanSeconds: number,
  limit = 100,
  after?: OrphanCursor,
): Promise<(JobView & OrphanCursor)[]> {
  const ranked = jobs(db)
    .where('status', 'pending')
    .whereNull('queued_reason')
    .where('created_at', '<', db.raw(`now() - make_interval(secs => ?)`, [olderThanSeconds]))
    .select('job_id', db.raw('row_number() over (partition by client_id order by created_at, job_id) as turn'));
  const query = jobViews(db)
    .join(ranked.as('r'), 'r.job_id', 'model_jobs.job_id')
    .select('r.turn')
    .orderBy([{ column: 'r.turn' }, { column: 'model_jobs.created_at' }, { column: 'model_jobs.job_id' }])
    .limit(limit);
  if (after) query.whereRaw('(r.turn, model_jobs.created_at, model_jobs.job_id) > (?, ?, ?)', [after.turn, after.created_at, after.job_id]);
  return query;
}

/**
 * Serializes the decisions about one tenant's running-job cap (a job held or started, held jobs released) until
 * the transaction ends, so two of them never count the same free slot.
 */
export async function lockTenantSlots(trx: Db, clientId: string): Promise<void> {
  await trx.raw(`SELECT pg_advisory_xact_lock(hashtextextended('mos-tenant-slots:' || ?, 0))`, [clientId]);
}

/** The tenant's started, unfinished jobs (held ones aside): what its running-job cap counts. */
export async function countActiveJobs(db: Db, clientId: string): Promise<number> {
  const row = (await jobs(db)
    .where({ client_id: clientId })
    .whereIn('status', ['pending', 'running'])
    .whereNull('queued_reason')
    .count({ n: '*' })
    .first()) as { n: string | number };
  return Number(row.n);
}

/** Holds pending jobs that may not start yet (cascade jobs written before the cap was applied to them). */
export async function holdJobs(db: Db, jobIds: string[], reason: string): Promise<void> {
  if (jobIds.length === 0) return;
  await jobs(db).whereIn('job_id', jobIds).where('status', 'pending').update({ queued_reason: reason, updated_at: db.fn.now() });
}

/** Releases up to `n` of the tenant's held jobs, highest priority first, then oldest; answers them. */
export async function releaseHeldJobs(db: Db, clientId: string, n: number): Promise<JobView[]> {
  const ids: string[] = await jobs(db)
    .where({ client_id: clientId, status: 'pending' })
    .whereNotNull('queued_reason')
    .orderBy([{ column: 'priority' }, { column: 'created_at' }])
    .limit(n)
    .pluck('job_id');
  if (ids.length === 0) return [];
  await jobs(db).whereIn('job_id', ids).update({ queued_reason: null, updated_at: db.fn.now() });
  return jobViews(db).whereIn('model_jobs.job_id', ids);
}

/** Whether the tenant has held jobs (one probe of the held-jobs index). */
export async function hasHeldJobs(db: Db, clientId: string): Promise<boolean> {
  const row = await jobs(db).where({ client_id: clientId, status: 'pending' }).whereNotNull('queued_reason').first('job_id');
  return row !== undefined;
}

/** Tenants that have held jobs. */
export async function tenantsWithHeldJobs(db: Db): Promise<string[]> {
  const tenants = await jobs(db).whereNotNull('queued_reason').where('status', 'pending').distinct().pluck('client_id');
  // A held job always has a tenant: holding is by tenant.
  return tenants.filter((tenant) => tenant !== null);
}

export interface JobFilter {
  /** Tenants the caller may see; undefined means every job (platform callers). An empty list matches nothing. */
  visible_client_ids?: string[];
  client_id?: string;
  domain_id?: string;
  service_id?: string;
  model_id?: string;
  model_version?: string;
  status?: string;
  job_type?: string;
  trigger?: string;
  source_job_id?: string;
  root_job_id?: string;
  rerun_of?: string;
  schedule_id?: string;
  created_after?: Date;
  created_before?: Date;
  /** The assignment revision the job ran under. */
  assignment_id?: string;
}

/**
 * Jobs matching every given filter, newest first, a page at a time. Domain and service ids are resolved to their
 * uuids first, so each filter is a range of one index on (column, created_at desc, job_id desc).
 */
export async function listJobs(db: Db, filter: JobFilter, page: PageRequest): Promise<Page<JobView>> {
  const q = jobViews(db);
  if (filter.visible_client_ids) q.whereIn('model_jobs.client_id', filter.visible_client_ids);
  for (const key of [
    'client_id',
    'model_id',
    'model_version',
    'status',
    'job_type',
    'trigger',
    'source_job_id',
    'root_job_id',
    'rerun_of',
    'schedule_id',
    'assignment_id',
  ] as const) {
    if (filter[key] !== undefined) q.where(`model_jobs.${key}`, filter[key]);
  }
  if (filter.domain_id !== undefined) {
    const domains = db('domains').where('domain_id', filter.domain_id);
    if (filter.client_id !== undefined) domains.where('client_id', filter.client_id);
    q.whereIn('model_jobs.domain_uuid', await domains.pluck('domain_uuid'));
  }
  if (filter.service_id !== undefined) {
    const services = db('services').where('services.service_id', filter.service_id).select('services.service_uuid');
    if (filter.client_id !== undefined || filter.domain_id !== undefined) {
      services.join('domains', 'domains.domain_uuid', 'services.domain_uuid');
      if (filter.client_id !== undefined) services.where('domains.client_id', filter.client_id);
      if (filter.domain_id !== undefined) services.where('domains.domain_id', filter.domain_id);
    }
    q.whereIn(
      'model_jobs.service_uuid',
      (await services).map((r: { service_uuid: string }) => r.service_uuid),
    );
  }
  if (filter.created_after) q.where('model_jobs.created_at', '>=', filter.created_after);
  if (filter.created_before) q.where('model_jobs.created_at', '<', filter.created_before);
  return paginate<JobView>(q, page, 'job_id', 'model_jobs');
}

/**
 * Cancels a job that has not finished: status `cancelled`, who and why. False when it had already reached a final
 * status (the caller then reads it).
 */
export async function cancelJob(db: Db, jobId: string, by: string, reason: string | null): Promise<boolean> {
  const n = await jobs(db)
    .where({ job_id: jobId })
    .whereNotIn('status', TERMINAL_JOB_STATUSES as JobStatus[])
    .update({ status: 'cancelled', cancelled_by: by, cancel_reason: reason, completed_at: db.fn.now(), updated_at: db.fn.now() });
  return n > 0;
}

/** Records the ECS task a dispatch started; answers the job's status at that moment (a cancelled job's task is stopped). */
export async function recordTaskArn(db: Db, jobId: string, taskArn: string): Promise<JobStatus | undefined> {
  const rows: { status: JobStatus }[] = await jobs(db)
    .where({ job_id: jobId })
    .update({ ecs_task_arn: taskArn, updated_at: db.fn.now() })
    .returning('status');
  return rows[0]?.status;
}

/** The jobs of one cascade tree, shallowest first, at most `limit`. */
export async function lineage(db: Db, rootJobId: string, limit: number): Promise<JobView[]> {
  return jobViews(db)
    .where('model_jobs.root_job_id', rootJobId)
    .orderBy([
      { column: 'model_jobs.cascade_depth', order: 'asc' },
      { column: 'model_jobs.created_at', order: 'asc' },
      { column: 'model_jobs.job_id', order: 'asc' },
    ])
    .limit(limit);
}
