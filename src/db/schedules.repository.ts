import { type Db, table } from './types';
import { paginate } from './pagination';
import { type Page, type PageRequest } from '../paging';
import type { ScheduleSpec, SchedulePolicies } from '../shapes';

const schedules = (db: Db) => table<ScheduleRow>(db, 'schedules');

export type ScheduleAction = 'training' | 'inference' | 'service_inference';

export interface ScheduleRow {
  schedule_id: string;
  action: ScheduleAction;
  client_id: string | null;
  domain_uuid: string | null;
  service_uuid: string | null;
  model_id: string | null;
  model_version: string | null;
  input: Record<string, unknown> | null;
  metadata: Record<string, unknown>;
  description: string;
  spec: ScheduleSpec;
  policies: SchedulePolicies;
  paused: boolean;
  note: string;
  revision: number;
  created_by: string | null;
  updated_by: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A schedule with the public ids of its domain and service. */
export interface ScheduleView extends ScheduleRow {
  domain_id: string | null;
  service_id: string | null;
}

export type NewSchedule = Omit<ScheduleRow, 'revision' | 'created_at' | 'updated_at' | 'updated_by'>;

export interface ScheduleRunRow {
  schedule_id: string;
  nominal_time: Date;
  outcome: 'started' | 'skipped';
  job_id: string | null;
  reason: string | null;
  workflow_id: string | null;
  created_at: Date;
  /** The job's status, joined. */
  job_status: string | null;
}

function views(db: Db) {
  return schedules(db)
    .leftJoin('domains', 'domains.domain_uuid', 'schedules.domain_uuid')
    .leftJoin('services', 'services.service_uuid', 'schedules.service_uuid')
    .select<ScheduleView[]>('schedules.*', 'domains.domain_id', 'services.service_id');
}

const json = (row: Partial<ScheduleRow>) => ({
  ...row,
  ...(row.input !== undefined ? { input: row.input === null ? null : JSON.stringify(row.input) } : {}),
  ...(row.metadata !== undefined ? { metadata: JSON.stringify(row.metadata) } : {}),
  ...(row.spec !== undefined ? { spec: JSON.stringify(row.spec) } : {}),
  ...(row.policies !== undefined ? { policies: JSON.stringify(row.policies) } : {}),
});

export async function insertSchedule(db: Db, row: NewSchedule): Promise<void> {
  await schedules(db).insert(json(row));
}

export async function findSchedule(db: Db, scheduleId: string, lock = false): Promise<ScheduleView | undefined> {
  const q = views(db).where('schedules.schedule_id', scheduleId);
  if (lock) q.forUpdate('schedules');
  return q.first();
}

export async function updateSchedule(db: Db, scheduleId: string, change: Partial<ScheduleRow>): Promise<void> {
  await schedules(db)
    .where({ schedule_id: scheduleId })
    .update({ ...json(change), revision: db.raw('revision + 1'), updated_at: db.fn.now() });
}

export async function deleteSchedule(db: Db, scheduleId: string): Promise<void> {
  await schedules(db).where({ schedule_id: scheduleId }).delete();
}

export interface ScheduleFilter {
  /** Service schedules of this tenant; null: the schedules of model versions (no tenant). */
  client_id: string | null;
  action?: ScheduleAction;
  domain_id?: string;
  model_id?: string;
}

export async function listSchedules(db: Db, filter: ScheduleFilter, page: PageRequest): Promise<Page<ScheduleView>> {
  const q = views(db);
  if (filter.client_id === null) q.whereNull('schedules.client_id');
  else q.where('schedules.client_id', filter.client_id);
  if (filter.action) q.where('schedules.action', filter.action);
  if (filter.domain_id) q.where('domains.domain_id', filter.domain_id);
  if (filter.model_id) q.where('schedules.model_id', filter.model_id);
  return paginate<ScheduleView>(q, page, 'schedule_id', 'schedules');
}

/**
 * Counts the schedules of one tenant (null: the schedules of no tenant) under a transaction-scoped advisory lock
 * on that owner, so two creations racing past the limit are serialized.
 */
export async function lockAndCountOwned(db: Db, clientId: string | null): Promise<number> {
  await db.raw(`SELECT pg_advisory_xact_lock(hashtext(?))`, [`schedules:${clientId ?? '-'}`]);
  const q = schedules(db).count<{ n: string }[]>({ n: '*' });
  if (clientId === null) q.whereNull('client_id');
  else q.where({ client_id: clientId });
  return Number((await q)[0].n);
}

/** Every schedule id, for the reconciler (a few thousand at most: schedules are bounded per tenant). */
export async function allScheduleIds(db: Db): Promise<{ schedule_id: string; created_at: Date }[]> {
  return schedules(db).select('schedule_id', 'created_at');
}

/** Records a fire once: false when this (schedule, nominal time) was already decided. */
export async function insertRun(
  db: Db,
  run: Pick<ScheduleRunRow, 'schedule_id' | 'nominal_time' | 'outcome' | 'job_id' | 'reason' | 'workflow_id'>,
): Promise<boolean> {
  const rows = await db('schedule_runs').insert(run).onConflict(['schedule_id', 'nominal_time']).ignore().returning('schedule_id');
  return rows.length > 0;
}

export async function findRun(db: Db, scheduleId: string, nominalTime: Date): Promise<ScheduleRunRow | undefined> {
  return db('schedule_runs').where({ schedule_id: scheduleId, nominal_time: nominalTime }).first('*', db.raw('null as job_status'));
}

/** The newest runs of a schedule, with their jobs' statuses. */
export async function recentRuns(db: Db, scheduleId: string, limit: number): Promise<ScheduleRunRow[]> {
  return db('schedule_runs')
    .leftJoin('model_jobs', 'model_jobs.job_id', 'schedule_runs.job_id')
    .where('schedule_runs.schedule_id', scheduleId)
    .orderBy('schedule_runs.nominal_time', 'desc')
    .limit(limit)
    .select('schedule_runs.*', 'model_jobs.status as job_status');
}
