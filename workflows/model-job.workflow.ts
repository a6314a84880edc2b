import {
  patched,
  setHandler,
  condition,
  upsertSearchAttributes,
  ApplicationFailure,
  allHandlersFinished,
  CancellationScope,
  isCancellation,
  log,
} from '@temporalio/workflow';
import {
  completeJobUpdate,
  jobStateQuery,
  CompletionReport,
  CompletionResult,
  ModelJobInput,
  ReportVia,
  COMPLETION_CONFLICT,
} from './definitions';
import { JOB_STATUS } from './search-attributes';
import { db, localDb, dispatcher, longDispatcher, cascades, type DbSteps } from './model-job.activities';
import { CANCELLATION, HTTP_HANDLERS, LOCAL_DB_STEPS, ONE_STEP_OUTCOME, UNRECORDED_OUTCOME } from './model-job.patches';
import { outcomeInSteps } from './model-job.before-one-step-outcome';
import { failureMessage } from './failure-message';

/**
 * The one-step outcome; a step that fails for good records the job failed instead, naming why, so the workflow never
 * closes with its job `running` (patch `unrecorded-outcome`; `patched` is asked only on that path, so runs whose
 * step succeeds carry no marker).
 */
async function finishJob(jobId: string, report: CompletionReport | null, via: ReportVia) {
  try {
    return await localDb.finishJob(jobId, report, via);
  } catch (err) {
    if (isCancellation(err) || !patched(UNRECORDED_OUTCOME)) throw err;
    log.warn('the outcome could not be recorded; recording the job failed', { jobId, error: failureMessage(err) });
    // The reason src/domain/jobs/run/storable-outcomes.ts names (workflow code imports nothing from src/).
    const error = { message: `the outcome could not be recorded as reported: ${failureMessage(err)}`, reason: 'output_unstorable' };
    return await localDb.finishJob(jobId, { status: 'failure', error }, 'dispatch');
  }
}

/** What a job's run knows at any moment, shared by the workflow's body and its handlers. */
interface JobRun {
  jobId: string;
  phase: string;
  report?: CompletionReport;
  // Passed to the outcome step, which marks an update's report unconfirmed (docs/temporal.md, "Completions Temporal
  // lost"). An argument of a local activity, not a command: replay compares only its type and id, so no patch.
  reportVia: ReportVia;
  timedOut: boolean;
  cancelled: boolean;
  result?: CompletionResult;
}

const cancelledFailure = () =>
  ApplicationFailure.create({ type: COMPLETION_CONFLICT, message: 'the job was cancelled', nonRetryable: true });

/**
 * One workflow per model job: dispatch the handler, wait for its completion report (the `completeJob` update),
 * record the outcome, fire the event subscriptions, and answer every completion with the same result.
 */
export async function modelJobWorkflow(input: ModelJobInput): Promise<CompletionResult> {
  const { jobId } = input;
  const run: JobRun = { jobId, phase: 'dispatching', reportVia: 'dispatch', timedOut: false, cancelled: false };
  answerCompletions(run);
  const steps: DbSteps = patched(LOCAL_DB_STEPS) ? localDb : db;

  try {
    // Histories recorded before the claim existed carry no result here: those runs own their job.
    const claim = await steps.startJob(jobId);
    if (claim && !claim.owned) {
      run.result = claim.result;
      run.phase = 'done';
      await condition(allHandlersFinished);
      return claim.result;
    }
    upsertSearchAttributes([{ key: JOB_STATUS, value: 'running' }]);
    await dispatchAndAwaitReport(run, input);

    run.phase = 'recording';
    if (patched(ONE_STEP_OUTCOME)) return await finishAndCascade(run);
    // Runs started before the one-step outcome (deprecation plan: docs/workflow-changes.md).
    const final = await outcomeInSteps({
      jobId,
      report: run.timedOut ? null : run.report!,
      steps,
      setPhase: (p) => (run.phase = p),
      refuseAfterCancel: (answer) => refuseAfterCancel(run, answer),
    });
    if (final.refused) return final.refused;
    run.result = final.result;
    run.phase = 'done';
    // Let in-flight completion updates return their answer before the workflow closes.
    await condition(allHandlersFinished);
    return final.result;
  } catch (err) {
    if (!isCancellation(err) || !patched(CANCELLATION)) throw err;
    run.cancelled = true;
    run.phase = 'cancelled';
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

/** The state query and the completion update: each report waits for the job's one answer, or is refused. */
function answerCompletions(run: JobRun): void {
  setHandler(jobStateQuery, () => ({ phase: run.phase, completion: run.report }));
  setHandler(
    completeJobUpdate,
    async (incoming) => {
      if (run.cancelled) throw cancelledFailure();
      if (run.timedOut)
        throw ApplicationFailure.create({ type: COMPLETION_CONFLICT, message: 'the job already timed out', nonRetryable: true });
      if (run.report && run.report.status !== incoming.status) {
        throw ApplicationFailure.create({
          type: COMPLETION_CONFLICT,
          message: `the job was already reported ${run.report.status}`,
          nonRetryable: true,
        });
      }
      if (!run.report) {
        run.report = incoming;
        run.reportVia = 'update';
      }
      try {
        await condition(() => run.result !== undefined || run.cancelled);
      } catch (err) {
        // The workflow was cancelled while this report waited for its answer: no completion is taken after that.
        if (!isCancellation(err)) throw err;
      }
      if (run.result === undefined) throw cancelledFailure();
      return run.result;
    },
    {
      validator: (incoming) => {
        // A report after the cancellation is refused before it reaches the history.
        if (run.cancelled) throw cancelledFailure();
        // Checked at run time: an update's argument arrives from outside, whatever its declared type.
        const status = (incoming as { status?: unknown } | null)?.status;
        if (status !== 'success' && status !== 'failure') {
          throw new Error('status must be success or failure');
        }
      },
    },
  );
}

/** Dispatches the handler, then waits for its report until the completion deadline (`timedOut` past it). */
async function dispatchAndAwaitReport(run: JobRun, input: ModelJobInput): Promise<void> {
  try {
    const dispatch = patched(HTTP_HANDLERS) ? longDispatcher(input.completionDeadlineSeconds) : dispatcher;
    const dispatched = await dispatch.dispatchJob(run.jobId);
    if (dispatched.kind === 'completed') run.report ??= dispatched.report;
  } catch (err) {
    if (isCancellation(err) && patched(CANCELLATION)) throw err;
    log.warn('dispatch failed', { jobId: run.jobId, error: failureMessage(err) });
    run.report ??= { status: 'failure', error: { message: `dispatch failed: ${failureMessage(err)}` } };
  }
  run.phase = 'awaiting_completion';
  const reported = await condition(() => run.report !== undefined, `${input.completionDeadlineSeconds} seconds`);
  if (!reported) run.timedOut = true;
}

/** The one-step outcome: record it, answer the completions, then start the cascade jobs it created. */
async function finishAndCascade(run: JobRun): Promise<CompletionResult> {
  const finished = await finishJob(run.jobId, run.timedOut ? null : run.report!, run.reportVia);
  upsertSearchAttributes([{ key: JOB_STATUS, value: finished.status }]);
  if (finished.status === 'cancelled') return await refuseAfterCancel(run, finished.result);
  // The answer is known with the commit: completions get it now, and the cascades start after.
  run.result = finished.result;
  if (finished.launch.length > 0) {
    run.phase = 'cascading';
    await cascades.launchJobs(finished.launch);
  }
  run.phase = 'done';
  await condition(allHandlersFinished);
  return run.result;
}

/** The API cancelled the job while the report was being recorded: the cancellation won, the report is refused. */
async function refuseAfterCancel(run: JobRun, answer: CompletionResult): Promise<CompletionResult> {
  run.cancelled = true;
  run.phase = 'cancelled';
  await db.cancelJob(run.jobId);
  await condition(allHandlersFinished);
  return { ...answer, status: 'failure', triggered_events: [] };
}
