/**
 * Where the kit remembers which jobs it ran, so a job delivered twice (Lambda's asynchronous invocation is
 * at-least-once) runs once. Each method must be ONE conditional write, atomic against concurrent callers:
 *
 * - DynamoDB: `claim` = PutItem `{job_id, state: 'running', expires_at}` with
 *   `ConditionExpression: 'attribute_not_exists(job_id) OR (#s = :running AND expires_at < :now)'`
 *   (ConditionalCheckFailedException → false); `complete` = UpdateItem `SET #s = :done REMOVE expires_at`;
 *   `release` = DeleteItem with `ConditionExpression: '#s = :running'`. A TTL attribute may expire done items after
 *   the job deadline.
 * - Postgres: `claim` = `INSERT INTO handled_jobs (job_id, state, expires_at) VALUES ($1, 'running', now() + $2 * interval '1 second')
 *   ON CONFLICT (job_id) DO UPDATE SET expires_at = EXCLUDED.expires_at
 *   WHERE handled_jobs.state = 'running' AND handled_jobs.expires_at < now() RETURNING job_id` (a row → true);
 *   `complete` = `UPDATE handled_jobs SET state = 'done' WHERE job_id = $1`;
 *   `release` = `DELETE FROM handled_jobs WHERE job_id = $1 AND state = 'running'`.
 */
export interface DedupStore {
  /** True for the one caller that may run the job now; false while another runs it (its lease) or once it is done. */
  claim(jobId: string, leaseSeconds: number): Promise<boolean>;
  /** The job's completion was reported: every later claim is false. */
  complete(jobId: string): Promise<void>;
  /** The run failed before its report: a redelivery may run the job again. */
  release(jobId: string): Promise<void>;
}

/**
 * The default store: one process's memory. Enough for one Lambda execution environment or one server (duplicates
 * that reach another instance are not seen: use a shared store there).
 */
export class MemoryStore implements DedupStore {
  private readonly jobs = new Map<string, { done: boolean; until: number }>();

  async claim(jobId: string, leaseSeconds: number): Promise<boolean> {
    const held = this.jobs.get(jobId);
    if (held && (held.done || held.until > Date.now())) return false;
    this.jobs.set(jobId, { done: false, until: Date.now() + leaseSeconds * 1000 });
    return true;
  }

  async complete(jobId: string): Promise<void> {
    this.jobs.set(jobId, { done: true, until: Infinity });
  }

  async release(jobId: string): Promise<void> {
    if (!this.jobs.get(jobId)?.done) this.jobs.delete(jobId);
  }
}
