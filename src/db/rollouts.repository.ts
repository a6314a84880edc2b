import { type Db, table } from './types';
import type { AssignmentRow } from './assignments.repository';
import type { JobStatus } from './jobs.repository';

const assignments = (db: Db) => table<AssignmentRow>(db, 'assignments');

/** A service as canary selection sees it: ranked by the hash of its id, with the features it provided. */
export interface RankedService {
  service_id: string;
  service_uuid: string;
  provided_features: Record<string, unknown>;
}

/**
 * The domain's services that have not departed, in canary order: by md5 of the service id (then the id). The order
 * does not depend on the share, so the first k of a larger share include the first k of a smaller one.
 */
export async function rankedServices(db: Db, domainUuid: string): Promise<RankedService[]> {
  return db('services')
    .where({ domain_uuid: domainUuid })
    .where('departure_datetime', '>', db.fn.now())
    .select('service_id', 'service_uuid', 'provided_features')
    .orderByRaw('md5(service_id), service_id');
}

/**
 * The active domain-scope revisions of a role that challenge the primary under `primaryKey`. Only revisions written
 * under the rules of the roles carry `settings.primary_key`: a free-form `canary` or `shadow` role written before
 * them means nothing until it is written again.
 */
export async function activeChallengers(
  db: Db,
  domainUuid: string,
  primaryKey: string,
  role: 'canary' | 'shadow',
): Promise<AssignmentRow[]> {
  return assignments(db)
    .where({ domain_uuid: domainUuid, status: 'active', role })
    .whereNull('service_uuid')
    .whereRaw(`settings->>'primary_key' = ?`, [primaryKey])
    .orderBy('assignment_key');
}

export async function findAssignment(db: Db, assignmentId: string): Promise<AssignmentRow | undefined> {
  return assignments(db).where({ assignment_id: assignmentId }).first();
}

/** Every domain-scope revision under the key, newest first. */
export async function revisionsOfKey(db: Db, domainUuid: string, key: string): Promise<AssignmentRow[]> {
  return assignments(db)
    .where({ domain_uuid: domainUuid, assignment_key: key })
    .whereNull('service_uuid')
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'assignment_id', order: 'desc' },
    ]);
}

/** Takes the active revision out of force with the reason (promoted, rolled back, the guardrail); the row as it is then. */
export async function archiveWithReason(
  db: Db,
  assignmentId: string,
  actor: string | null,
  reason: string,
): Promise<AssignmentRow | undefined> {
  const [row] = await assignments(db)
    .where({ assignment_id: assignmentId, status: 'active' })
    .update({ status: 'archived', status_reason: reason, updated_at: db.fn.now(), archived_at: db.fn.now(), archived_by: actor })
    .returning('*');
  return row;
}

/** Which jobs one side of a rollout report counts. */
export interface SideFilter {
  domainUuid: string;
  assignmentIds: string[];
  since?: Date;
  until?: Date | null;
  /** The primary side of a shadow: the jobs the shadows of these revisions shadowed, whatever their assignment. */
  shadowedBy?: boolean;
}

export interface SideCounts {
  status: JobStatus;
  jobs: number;
  p50_ms: number | null;
  p95_ms: number | null;
}

const LATENCY_MS = `extract(epoch from (completed_at - started_at)) * 1000`;

function sideJobs(db: Db, side: SideFilter) {
  const q = db('model_jobs').where({ domain_uuid: side.domainUuid, job_type: 'inference' }).whereNot('trigger', 'cascade');
  if (side.shadowedBy) {
    q.whereIn('job_id', db('model_jobs').where('trigger', 'shadow').whereIn('assignment_id', side.assignmentIds).select('source_job_id'));
    return q;
  }
  q.whereIn('assignment_id', side.assignmentIds);
  if (side.since) q.where('created_at', '>=', side.since);
  if (side.until) q.where('created_at', '<', side.until);
  return q;
}

/** Job counts per status of one side, with latency percentiles (dispatch to completion) over its finished jobs. */
export async function sideStats(
  db: Db,
  side: SideFilter,
): Promise<{ counts: Record<string, number>; p50_ms: number | null; p95_ms: number | null }> {
  if (side.assignmentIds.length === 0) return { counts: {}, p50_ms: null, p95_ms: null };
  const rows = await sideJobs(db, side).select('status').count<{ status: string; n: string }[]>('* as n').groupBy('status');
  const [latency] = await sideJobs(db, side)
    .whereNotNull('started_at')
    .whereIn('status', ['success', 'failure'])
    .select<{ p50_ms: number | null; p95_ms: number | null }[]>(
      db.raw(`percentile_cont(0.5) within group (order by ${LATENCY_MS}) as p50_ms`),
      db.raw(`percentile_cont(0.95) within group (order by ${LATENCY_MS}) as p95_ms`),
    );
  const ms = (v: unknown) => (v === null || v === undefined ? null : Math.round(Number(v) * 10) / 10);
  return { counts: Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])), p50_ms: ms(latency?.p50_ms), p95_ms: ms(latency?.p95_ms) };
}

export interface ShadowPair {
  primary_job_id: string;
  shadow_job_id: string;
  primary_status: JobStatus;
  shadow_status: JobStatus;
  primary_output: Record<string, unknown> | null;
  shadow_output: Record<string, unknown> | null;
}

/** The shadow jobs of the revisions with the primary job each shadows, oldest first, at most `limit`. */
export async function shadowPairs(db: Db, assignmentIds: string[], limit: number): Promise<ShadowPair[]> {
  if (assignmentIds.length === 0) return [];
  return db('model_jobs as s')
    .join('model_jobs as p', 'p.job_id', 's.source_job_id')
    .where('s.trigger', 'shadow')
    .whereIn('s.assignment_id', assignmentIds)
    .select(
      'p.job_id as primary_job_id',
      's.job_id as shadow_job_id',
      'p.status as primary_status',
      's.status as shadow_status',
      'p.output as primary_output',
      's.output as shadow_output',
    )
    .orderBy([{ column: 's.created_at' }, { column: 's.job_id' }])
    .limit(limit);
}

/** The shadow jobs a primary job's outcome created (a repeat of the outcome step starts them again). */
export async function shadowJobIds(db: Db, sourceJobId: string): Promise<string[]> {
  const rows: { job_id: string }[] = await db('model_jobs').where({ source_job_id: sourceJobId, trigger: 'shadow' }).select('job_id');
  return rows.map((r) => r.job_id);
}
