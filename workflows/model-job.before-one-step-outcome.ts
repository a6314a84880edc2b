import { patched, upsertSearchAttributes } from '@temporalio/workflow';
import type { CompletionReport, CompletionResult, TriggeredEvent } from './definitions';
import { JOB_STATUS } from './search-attributes';
import { db, cascades, type DbSteps } from './model-job.activities';
import { CANCELLATION } from './model-job.patches';
import { failureMessage } from './failure-message';

/**
 * The outcome as runs started before `one-step-outcome` take it, kept for their replay until the patch is deprecated
 * (docs/workflow-changes.md): record the outcome, list the subscriptions, fire each as an activity, store the answer.
 * `refused` is the answer when a cancellation won over the report.
 */
export async function outcomeInSteps(run: {
  jobId: string;
  report: CompletionReport | null;
  steps: DbSteps;
  setPhase(phase: string): void;
  refuseAfterCancel(answer: CompletionResult): Promise<CompletionResult>;
}): Promise<{ result: CompletionResult; refused?: undefined } | { refused: CompletionResult }> {
  const { jobId, report, steps } = run;
  const outcome = await db.recordCompletion(jobId, report);
  upsertSearchAttributes([{ key: JOB_STATUS, value: outcome.status }]);
  if (outcome.status === 'cancelled' && patched(CANCELLATION)) {
    return { refused: await run.refuseAfterCancel({ ...outcome.base, triggered_events: [] }) };
  }

  const triggered: TriggeredEvent[] = [];
  if (outcome.triggerEvent) {
    run.setPhase('cascading');
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
  return { result: final };
}
