import * as jobs from '../../../db/jobs.repository';
import * as subs from '../../../db/subscriptions.repository';
import type { CompletionReport, CompletionResult, ReportVia } from '../../../../workflows/definitions';
import type { JobGateway } from '../../ports';
import { commitOutcomeOf, recordOutcome, type FinishedJob, type RecordedOutcome } from './job-outcomes';
import { fireSubscription, type FireInput } from './cascades';
import { jobStarter } from '../launch/job-starter';
import { enforceGuardrail } from '../../assignments';
import type { JobRunsDeps } from './job-runs';

/** The steps of a job's run from its outcome on: the record, the cascade jobs and their starts, the stored answer. */
export function createOutcomeSteps(deps: JobRunsDeps) {
  const { knex } = deps;

  return {
    recordOutcome(jobId: string, report: CompletionReport | null): Promise<RecordedOutcome> {
      return recordOutcome(deps, jobId, report);
    },

    /** The outcome, the cascade jobs it fires and the completion's answer, in one transaction (job-outcomes.ts `commitOutcome`). */
    async finish(jobId: string, report: CompletionReport | null, via?: ReportVia): Promise<FinishedJob> {
      const { finished, job, revision } = await commitOutcomeOf(deps, jobId, report, via);
      // After the commit: a canary job's outcome may trip its canary's guardrail (docs/progressive-delivery.md). A
      // failure here is logged, not thrown: the outcome stands, and the next canary job's outcome judges again.
      await enforceGuardrail(deps, job, revision).catch((err: unknown) =>
        deps.log.error({ err, jobId }, 'the canary guardrail check failed'),
      );
      return finished;
    },

    /**
     * Starts the workflows of committed cascade jobs (a repeat finds them started) that their tenant's running-job cap
     * leaves room for, holding the others. A start Temporal refuses for good
     * marks that job failed with the reason, as a refused start of the API does; other failures throw, to be retried.
     */
    async launchJobs(jobIds: string[], gateway: JobGateway = deps.gateway): Promise<void> {
      const written = await jobs.findJobs(knex, jobIds);
      // Those past their tenant's cap are held; the releaser starts them as the tenant's jobs finish.
      const rows = deps.slots ? await deps.slots.admitWritten(written) : written.filter((j) => !j.queued_reason);
      const start = jobStarter({ ...deps, gateway }, { transient: 'throw' });
      const outcomes = await Promise.allSettled(rows.map(start));
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failed) throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
    },

    async subscriptionsToFire(jobId: string, triggerEvent: string): Promise<string[]> {
      return (await subs.triggeredByJob(knex, jobId, triggerEvent)).map((s) => s.subscription_id);
    },

    /** Starts one subscription's cascade job; `gateway` may differ from the deps' (e.g. to start it in a linked trace). */
    fireSubscription(input: FireInput, gateway: JobGateway = deps.gateway): Promise<{ job_id: string }> {
      return fireSubscription({ knex, schemas: deps.schemas, gateway, maxCascadeDepth: deps.maxCascadeDepth }, input);
    },

    async storeResult(jobId: string, result: CompletionResult): Promise<void> {
      await jobs.storeCompletionResult(knex, jobId, result);
      // Counted here, where each entry's final outcome (after its retries) is known, once per job.
      const failed = result.triggered_events.filter((e) => e.error).length;
      deps.metrics?.cascadeFinished(result.triggered_events.length - failed, failed);
    },
  };
}
