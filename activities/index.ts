import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { ApplicationFailure, Context, log as activityLog } from '@temporalio/activity';
import { context as otelContext, propagation } from '@opentelemetry/api';
import * as jobs from '../src/db/jobs.repository';
import * as models from '../src/db/models.repository';
import * as subs from '../src/db/subscriptions.repository';
import { recordOutcome, RecordedOutcome } from '../src/domain/job-outcomes';
import { fireSubscription, CascadeRejected, FireInput } from '../src/domain/cascades';
import type { UserSchemaCompiler } from '../src/domain/json-schemas';
import type { JobLauncher } from '../src/temporal/job-launcher';
import type { ServiceMetrics } from '../src/observability/metrics';
import { launchInLinkedTrace } from '../src/observability/trace-links';
import { dispatch, DispatchClients, DispatchResult, Handler } from './dispatch';
import { classifiedActivities } from './classified';
import type { CompletionReport, CompletionResult, StartClaim } from '../workflows/definitions';

export interface ActivityDeps {
  knex: Knex;
  schemas: UserSchemaCompiler;
  launcher: JobLauncher;
  clients: DispatchClients;
  log: Logger;
  publicBaseUrl: string;
  maxCascadeDepth: number;
  metrics?: ServiceMetrics;
}

/** The W3C `traceparent` of the active span, for handlers to send back with their completion; none without tracing. */
function traceparent(): { traceparent?: string } {
  const carrier: Record<string, string> = {};
  propagation.inject(otelContext.active(), carrier);
  return carrier.traceparent ? { traceparent: carrier.traceparent } : {};
}

/**
 * The job workflow's side effects, closing over the worker's dependencies. Their failures are classified
 * (activities/classified.ts): an outage is retried until it ends, a permanent refusal fails at once.
 */
export function createActivities(deps: ActivityDeps) {
  const { knex, metrics } = deps;
  const cascadeLauncher = launchInLinkedTrace(deps.launcher);

  async function loadJob(jobId: string) {
    const job = await jobs.findJob(knex, jobId);
    if (!job) throw ApplicationFailure.create({ message: `job ${jobId} does not exist`, nonRetryable: true });
    return job;
  }

  return classifiedActivities({
    async ping(name: string): Promise<string> {
      const { rows } = await knex.raw('select 1 as ok');
      return `pong ${name} (db ${rows[0].ok === 1 ? 'ok' : 'unexpected'})`;
    },

    /**
     * Claims the job for this workflow run. A run that does not own the job (another run of the same id claimed
     * it) gets the job's recorded answer and must do nothing else.
     */
    async startJob(jobId: string): Promise<StartClaim> {
      const job = await loadJob(jobId);
      const runId = Context.current().info.workflowExecution?.runId;
      if (!runId) throw ApplicationFailure.create({ message: 'startJob runs only inside a job workflow', nonRetryable: true });
      if (await jobs.claimForRun(knex, jobId, runId)) return { owned: true };
      activityLog.warn('job already claimed by another workflow run; this run does nothing', { jobId, owner: job.workflow_run_id });
      const current = (await jobs.findJob(knex, jobId))!;
      return {
        owned: false,
        result: current.completion_result ?? {
          job_id: jobId, model_id: current.model_id, model_version: current.model_version,
          status: current.status === 'success' ? 'success' : 'failure', triggered_events: [],
        },
      };
    },

    async dispatchJob(jobId: string): Promise<DispatchResult> {
      const job = await loadJob(jobId);
      const model = await models.findModel(knex, job.model_id);
      if (!model) throw ApplicationFailure.create({ message: `model ${job.model_id} does not exist`, nonRetryable: true });
      const path = `/v2/models/${encodeURIComponent(job.model_id)}/versions/${encodeURIComponent(job.model_version)}/jobs/${job.job_id}/complete`;
      const triggerOutput = job.metadata?.trigger_output as Record<string, unknown> | undefined;
      const handler = model.handlers[job.job_type] as unknown as Handler;
      metrics?.dispatchAttempts.inc({ handler: handler.type });
      try {
        return await dispatch(deps.clients, handler, {
          job_id: job.job_id,
          job_type: job.job_type,
          model_id: job.model_id,
          model_version: job.model_version,
          input: job.input ?? {},
          ...(triggerOutput ? { trigger_output: triggerOutput } : {}),
          completion: { method: 'POST', path, url: `${deps.publicBaseUrl.replace(/\/$/, '')}${path}` },
          ...traceparent(),
        });
      } catch (err) {
        const retryable = !(err instanceof ApplicationFailure && err.nonRetryable);
        metrics?.dispatchFailures.inc({ handler: handler.type, retryable: String(retryable) });
        throw err;
      }
    },

    async recordCompletion(jobId: string, report: CompletionReport | null): Promise<RecordedOutcome> {
      return recordOutcome(knex, deps.schemas, deps.log, jobId, report, metrics);
    },

    async triggeredSubscriptions(jobId: string, triggerEvent: string): Promise<string[]> {
      const job = await loadJob(jobId);
      return (await subs.triggeredSubscriptions(knex, job.model_id, triggerEvent)).map((s) => s.subscription_id);
    },

    async fireSubscription(input: FireInput): Promise<{ job_id: string }> {
      try {
        return await fireSubscription({ knex, schemas: deps.schemas, launcher: cascadeLauncher, maxCascadeDepth: deps.maxCascadeDepth }, input);
      } catch (err) {
        if (err instanceof CascadeRejected) {
          activityLog.warn('cascade rejected', { ...input, reason: err.message });
          throw ApplicationFailure.create({ message: err.message, type: 'CascadeRejected', nonRetryable: true });
        }
        throw err;
      }
    },

    async storeCompletionResult(jobId: string, result: CompletionResult): Promise<void> {
      await jobs.storeCompletionResult(knex, jobId, result);
      // Counted here, where each entry's final outcome (after its retries) is known, once per job.
      const failed = result.triggered_events.filter((e) => e.error).length;
      metrics?.cascadeFinished(result.triggered_events.length - failed, failed);
    },
  });
}

export type Activities = ReturnType<typeof createActivities>;
