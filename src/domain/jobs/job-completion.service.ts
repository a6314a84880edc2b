import type { Logger } from 'pino';
import * as repo from '../../db/jobs.repository';
import type { CompletionReport } from '../../../workflows/definitions';
import type { Principal } from '../../auth/principal';
import { ConflictError, InvalidInputError, UnavailableError } from '../../errors';
import type { ServiceMetrics } from '../../observability/metrics';
import { workflowIdFor, type CompletionDelivery, type JobGateway, type JobStore } from '../ports';
import { OUTPUT_UNSTORABLE, unstorableReason } from './run/storable-outcomes';
import { visibleJob } from './job-access';

/**
 * The completion's answer from the job's record, once the workflow no longer answers it: the stored answer for a
 * repeat of the recorded status, 409 for a cancelled or timed-out job or another status, 503 while it is finishing.
 */
export function completionFromRecord(job: repo.JobView, report: CompletionReport): repo.CompletionResult {
  if (job.status === 'cancelled') throw new ConflictError(`the job was cancelled by ${job.cancelled_by}`);
  if (job.status === 'timed_out') throw new ConflictError('the job already timed out');
  if (job.status !== report.status) throw new ConflictError(`the job was already reported ${job.status}`);
  if (!job.completion_result) throw new UnavailableError('the job is finishing; retry the completion shortly');
  return job.completion_result;
}

/** The answer once the workflow closed between our read and the update: the record now holds it. */
async function answerOfClosed(store: JobStore, jobId: string, report: CompletionReport): Promise<repo.CompletionResult> {
  const current = (await store.findJob(jobId))!;
  if (!current.completion_result && !repo.TERMINAL_JOB_STATUSES.includes(current.status)) {
    // An unfinished job with no workflow: it ran on another Temporal (TEMPORAL_MODE switched, another namespace),
    // or its history is gone. No report can reach it here.
    throw new ConflictError(
      `job ${jobId} is ${current.status} but its workflow ${workflowIdFor(jobId)} does not exist on this Temporal: it was started on ` +
        'another Temporal (after a switch of TEMPORAL_MODE, switch back with the same MOS_DATA_DIR to complete it) or its history is gone; ' +
        `POST /v2/jobs/${jobId}/cancel ends it here`,
    );
  }
  return completionFromRecord(current, report);
}

/** The answer when the update was not answered in time: the stored one if the report was taken, else a 503. */
async function answerOfUnanswered(
  store: JobStore,
  jobId: string,
  report: CompletionReport,
  waitSeconds: number,
  cause: unknown,
): Promise<repo.CompletionResult> {
  // The workflow records a report with its answer in one step: a record that has the answer took the report.
  const current = (await store.findJob(jobId))!;
  if (current.completion_result) return completionFromRecord(current, report);
  throw new UnavailableError(
    repo.TERMINAL_JOB_STATUSES.includes(current.status)
      ? `the report was recorded and the job is still finishing; repeat the same completion for its answer`
      : `the report was not taken within ${waitSeconds} s: Temporal, the job's worker or the worker's database is unavailable. ` +
          'It may still be taken when they are back; repeat the same completion (repeats are idempotent)',
    { cause },
  );
}

/** The handler's report of a job's end, through the workflow's `completeJob` update. */
export function createJobCompletion(deps: {
  gateway: JobGateway;
  store: JobStore;
  log: Logger;
  metrics?: ServiceMetrics;
  /** Longest a completion waits for the workflow's answer before a 503. */
  completionWaitSeconds: number;
}) {
  const { gateway, store, log, metrics } = deps;

  /**
   * Temporal answered the update, so its history holds the outcome: the reconciler need not deliver it again. A failed
   * write is logged, not answered: it costs only that redelivery, which the workflow answers like a repeat.
   */
  async function confirm(jobId: string): Promise<void> {
    await store.confirmOutcome(jobId).catch((err: unknown) => log.warn({ err, jobId }, 'could not mark the outcome confirmed'));
  }

  async function answerOf(delivery: CompletionDelivery, jobId: string, report: CompletionReport): Promise<repo.CompletionResult> {
    switch (delivery.kind) {
      case 'answered':
        await confirm(jobId);
        return delivery.result;
      case 'conflict':
        throw new ConflictError(delivery.message);
      case 'closed':
        await confirm(jobId);
        return answerOfClosed(store, jobId, report);
      case 'unanswered':
        return answerOfUnanswered(store, jobId, report, deps.completionWaitSeconds, delivery.cause);
    }
  }

  /** The completion through the workflow's `completeJob` update, or from the record once the answer is stored. */
  async function completeJob(
    principal: Principal,
    modelId: string,
    version: string,
    jobId: string,
    report: CompletionReport,
  ): Promise<repo.CompletionResult> {
    const job = await visibleJob(store, principal, modelId, version, jobId);
    // Refused here rather than failed later: the handler still holds its result and can report it again within bounds.
    const unstorable = unstorableReason(report.output ?? {}) ?? unstorableReason(report.error ?? {}, 'error');
    if (unstorable) throw new InvalidInputError(`${OUTPUT_UNSTORABLE}: ${unstorable}`);
    // Once the answer is stored the workflow may be gone; until then it answers repeats itself.
    if (job.completion_result || job.status === 'timed_out' || job.status === 'cancelled') return completionFromRecord(job, report);
    if (job.status === 'pending') throw new ConflictError('the job has not been dispatched yet; retry shortly');
    return answerOf(await gateway.complete(jobId, report, deps.completionWaitSeconds), jobId, report);
  }

  return {
    /**
     * Reports a job complete through the workflow's `completeJob` update; the answer carries the cascade outcome.
     * A repeated report with the same status returns the first answer; another status is a 409.
     */
    async complete(...args: Parameters<typeof completeJob>): Promise<repo.CompletionResult> {
      try {
        const result = await completeJob(...args);
        metrics?.completionReported(result.triggered_events.some((e) => e.error) ? '207' : '200');
        return result;
      } catch (err) {
        if (err instanceof ConflictError) metrics?.completionReported('409');
        throw err;
      }
    },
  };
}
