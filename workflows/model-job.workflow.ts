import {
  proxyActivities,
  proxyLocalActivities,
  patched,
  setHandler,
  condition,
  upsertSearchAttributes,
  ApplicationFailure,
  ActivityFailure,
  allHandlersFinished,
  CancellationScope,
  isCancellation,
  log,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  completeJobUpdate,
  jobStateQuery,
  CompletionReport,
  CompletionResult,
  ModelJobInput,
  ReportVia,
  COMPLETION_CONFLICT,
  TriggeredEvent,
} from './definitions';
import { JOB_STATUS } from './search-attributes';

// Timeouts fit the work, so a task lost with a dead worker is retried within seconds, not minutes:
// database steps and one AWS call (a Lambda `Event` invoke, an ECS RunTask) answer well under a second.
// No maximumAttempts: activities fail non-retryably on errors retrying cannot fix (activities/classified.ts),
// so what is left is an outage of Postgres, Temporal or AWS, waited out at one attempt a minute however long it lasts.
const db = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
// The claim, the subscription list and the stored answer as local activities: run by the worker inside the workflow
// task that needs them, with no round trip through the server per step. The recording of the outcome stays an
// activity: a completion that arrives while it runs (a repeat, a late report) reaches the open workflow and gets
// its answer there, where a local activity would hold it until the workflow had closed.
const localDb = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
/** Runs started before this change replay with the database steps as (remote) activities. */
export const LOCAL_DB_STEPS = 'local-db-steps';
/**
 * A cancelled run records the cancellation (unless the API already did), stops the handler's ECS task and closes as
 * cancelled, without recording a completion or firing a cascade. Runs cancelled before this change replay as they ran.
 */
export const CANCELLATION = 'job-cancellation';
/**
 * After the report, one local activity records the outcome, creates the cascade jobs and stores the answer in one
 * transaction; the completion is answered in the same workflow task, and the cascades' workflows are started after it.
 * Runs started before this change replay with the outcome, each cascade and the stored answer as separate steps.
 */
export const ONE_STEP_OUTCOME = 'one-step-outcome';
const dispatcher = proxyActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
const cascades = proxyActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

function failureMessage(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * One workflow per model job: dispatch the handler, wait for its completion report (the `completeJob` update),
 * record the outcome, fire the event subscriptions, and answer every completion with the same result.
 */
export async function modelJobWorkflow(input: ModelJobInput): Promise<CompletionResult> {
  const { jobId } = input;
  let phase = 'dispatching';
  let report: CompletionReport | undefined;
  // Passed to the outcome step, which marks an update's report unconfirmed (docs/temporal.md, "Completions Temporal
  // lost"). An argument of a local activity, not a command: replay compares only its type and id, so no patch.
  let reportVia: ReportVia = 'dispatch';
  let timedOut = false;
  let cancelled = false;
  let result: CompletionResult | undefined;
  const cancelledFailure = () =>
    ApplicationFailure.create({ type: COMPLETION_CONFLICT, message: 'the job was cancelled', nonRetryable: true });

  setHandler(jobStateQuery, () => ({ phase, completion: report }));
  setHandler(
    completeJobUpdate,
    async (incoming) => {
      if (cancelled) throw cancelledFailure();
      if (timedOut)
        throw ApplicationFailure.create({ type: COMPLETION_CONFLICT, message: 'the job already timed out', nonRetryable: true });
      if (report && report.status !== incoming.status) {
        throw ApplicationFailure.create({
          type: COMPLETION_CONFLICT,
          message: `the job was already reported ${report.status}`,
          nonRetryable: true,
        });
      }
      if (!report) {
        report = incoming;
        reportVia = 'update';
      }
      try {
        await condition(() => result !== undefined || cancelled);
      } catch (err) {
        // The workflow was cancelled while this report waited for its answer: no completion is taken after that.
        if (!isCancellation(err)) throw err;
      }
      if (result === undefined) throw cancelledFailure();
      return result;
    },
    {
      validator: (incoming) => {
        // A report after the cancellation is refused before it reaches the history.
        if (cancelled) throw cancelledFailure();
        // Checked at run time: an update's argument arrives from outside, whatever its declared type.
        const status = (incoming as { status?: unknown } | null)?.status;
        if (status !== 'success' && status !== 'failure') {
          throw new Error('status must be success or failure');
        }
      },
    },
  );

  const steps = patched(LOCAL_DB_STEPS) ? localDb : db;

  // The API cancelled the job while the report was being recorded: the cancellation won, the report is refused.
  async function refuseAfterCancel(answer: CompletionResult): Promise<CompletionResult> {
    cancelled = true;
    phase = 'cancelled';
    await db.cancelJob(jobId);
    await condition(allHandlersFinished);
    return { ...answer, status: 'failure', triggered_events: [] };
  }

  try {
    // Histories recorded before the claim existed carry no result here: those runs own their job.
    const claim = await steps.startJob(jobId);
    if (claim && !claim.owned) {
      result = claim.result;
      phase = 'done';
      await condition(allHandlersFinished);
      return claim.result;
    }
    upsertSearchAttributes([{ key: JOB_STATUS, value: 'running' }]);

    try {
      const dispatched = await dispatcher.dispatchJob(jobId);
      if (dispatched.kind === 'completed') report ??= dispatched.report;
    } catch (err) {
      if (isCancellation(err) && patched(CANCELLATION)) throw err;
      log.warn('dispatch failed', { jobId, error: failureMessage(err) });
      report ??= { status: 'failure', error: { message: `dispatch failed: ${failureMessage(err)}` } };
    }

    phase = 'awaiting_completion';
    const reported = await condition(() => report !== undefined, `${input.completionDeadlineSeconds} seconds`);
    if (!reported) timedOut = true;

    phase = 'recording';
    if (patched(ONE_STEP_OUTCOME)) {
      const finished = await localDb.finishJob(jobId, timedOut ? null : report!, reportVia);
      upsertSearchAttributes([{ key: JOB_STATUS, value: finished.status }]);
      if (finished.status === 'cancelled') return await refuseAfterCancel(finished.result);
      // The answer is known with the commit: completions get it now, and the cascades start after.
      result = finished.result;
      if (finished.launch.length > 0) {
        phase = 'cascading';
        await cascades.launchJobs(finished.launch);
      }
      phase = 'done';
      await condition(allHandlersFinished);
      return result;
    }
    const outcome = await db.recordCompletion(jobId, timedOut ? null : report!);
    upsertSearchAttributes([{ key: JOB_STATUS, value: outcome.status }]);
    if (outcome.status === 'cancelled' && patched(CANCELLATION)) return await refuseAfterCancel({ ...outcome.base, triggered_events: [] });

    const triggered: TriggeredEvent[] = [];
    if (outcome.triggerEvent) {
      phase = 'cascading';
      const subscriptionIds = await steps.triggeredSubscriptions(jobId, outcome.triggerEvent);
      const fired = await Promise.all(
        subscriptionIds.map(async (subscriptionId): Promise<TriggeredEvent> => {
          try {
            const { job_id } = await cascades.fireSubscription({ sourceJobId: jobId, subscriptionId, triggerOutput: report?.output ?? {} });
            return { subscription_id: subscriptionId, job_id };
          } catch (err) {
            return { subscription_id: subscriptionId, error: failureMessage(err) };
          }
        }),
      );
      triggered.push(...fired);
    }

    const final: CompletionResult = { ...outcome.base, triggered_events: triggered };
    await steps.storeCompletionResult(jobId, final);
    result = final;
    phase = 'done';
    // Let in-flight completion updates return their answer before the workflow closes.
    await condition(allHandlersFinished);
    return final;
  } catch (err) {
    if (!isCancellation(err) || !patched(CANCELLATION)) throw err;
    cancelled = true;
    phase = 'cancelled';
    log.info('job cancelled', { jobId });
    // Cleanup runs although the workflow is cancelled: the record (if the API has not written it) and the ECS task.
    await CancellationScope.nonCancellable(async () => {
      await db.cancelJob(jobId);
      upsertSearchAttributes([{ key: JOB_STATUS, value: 'cancelled' }]);
      await condition(allHandlersFinished);
    });
    throw err;
  }
}
