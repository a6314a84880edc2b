import type { Db } from './types';
import type { JobRow } from './jobs.repository';

/** A job whose recorded outcome Temporal has not confirmed: what is needed to report it to the workflow again. */
export type UnconfirmedOutcome = Pick<JobRow, 'job_id' | 'status' | 'output' | 'error'>;

/** Marks a job's outcome, recorded from a completion report, as not yet confirmed by Temporal (in the recording transaction). */
export async function markUnconfirmed(db: Db, jobId: string): Promise<void> {
  await db('unconfirmed_outcomes').insert({ job_id: jobId }).onConflict('job_id').ignore();
}

/** Temporal holds the job's outcome: nothing is left to deliver. */
export async function confirmOutcome(db: Db, jobId: string): Promise<void> {
  await db('unconfirmed_outcomes').where({ job_id: jobId }).delete();
}

/** A delivery no workflow answered: the outcome waits as long again, behind those not tried since. */
export async function deferOutcome(db: Db, jobId: string): Promise<void> {
  await db('unconfirmed_outcomes').where({ job_id: jobId }).update({ attempted_at: db.fn.now() });
}

/** Outcomes unconfirmed for longer than `olderThanSeconds` since they were recorded or last tried, longest first. */
export async function unconfirmedOutcomes(db: Db, olderThanSeconds: number, limit = 100): Promise<UnconfirmedOutcome[]> {
  const since = db.raw('coalesce(unconfirmed_outcomes.attempted_at, unconfirmed_outcomes.recorded_at)');
  return db('unconfirmed_outcomes')
    .join('model_jobs', 'model_jobs.job_id', 'unconfirmed_outcomes.job_id')
    .where(since, '<', db.raw(`now() - make_interval(secs => ?)`, [olderThanSeconds]))
    .orderBy(since)
    .limit(limit)
    .select('model_jobs.job_id', 'model_jobs.status', 'model_jobs.output', 'model_jobs.error');
}
