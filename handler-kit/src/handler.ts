import { parseJob, type Job } from './job';
import { MemoryStore, type DedupStore } from './store';
import { reportCompletion, type Report, type ReportOptions, type ReportOutcome } from './report';

/** Your model: the job in, its output out. A thrown error is reported as the job's failure, with its message. */
export type JobFunction = (job: Job) => Promise<Record<string, unknown> | void> | Record<string, unknown> | void;

export interface KitOptions extends ReportOptions {
  /** Remembers handled jobs (default: this process's memory; see store.ts for DynamoDB and Postgres). */
  store?: DedupStore;
  /** How long a claim holds off a duplicate while the job runs (default 15 minutes): longer than your model takes. */
  leaseSeconds?: number;
}

export type HandleResult =
  { job_id: string; outcome: 'duplicate' } | { job_id: string; outcome: 'reported'; report: Report['status']; answer: ReportOutcome };

/** The core both wrappers share: validate, claim, run, report once, remember. */
export function createJobHandler(fn: JobFunction, options: KitOptions = {}) {
  const store = options.store ?? new MemoryStore();
  return async function handle(payload: unknown): Promise<HandleResult> {
    const job = parseJob(payload);
    if (!(await store.claim(job.job_id, options.leaseSeconds ?? 900))) {
      options.log?.('duplicate delivery; already handled or running', { job_id: job.job_id });
      return { job_id: job.job_id, outcome: 'duplicate' };
    }
    let report: Report;
    try {
      report = { status: 'success', output: (await fn(job)) ?? {} };
    } catch (err) {
      report = { status: 'failure', error: { message: err instanceof Error ? err.message : String(err) } };
    }
    let answer: ReportOutcome;
    try {
      answer = await reportCompletion(job, report, options);
    } catch (err) {
      // Not reported: let a redelivery (Lambda's retry of a thrown error) run the job again.
      await store.release(job.job_id);
      throw err;
    }
    await store.complete(job.job_id);
    return { job_id: job.job_id, outcome: 'reported', report: report.status, answer };
  };
}
