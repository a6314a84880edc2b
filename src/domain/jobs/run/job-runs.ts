import type { Knex } from 'knex';
import type { Logger } from 'pino';
import * as jobs from '../../../db/jobs.repository';
import * as subs from '../../../db/subscriptions.repository';
import type { Handler } from '../../../shapes';
import type { CompletionReport, CompletionResult, ReportVia, StartClaim } from '../../../../workflows/definitions';
import type { JobGateway } from '../../ports';
import type { ServiceMetrics } from '../../../observability/metrics';
import type { UserSchemaCompiler } from '../../common';
import {
  commitOutcomeOf,
  outputCheck,
  recordCancellation,
  recordedAnswer,
  recordOutcome,
  type FinishedJob,
  type RecordedOutcome,
} from './job-outcomes';
import { fireSubscription, type FireInput } from './cascades';
import { jobStarter } from '../launch/job-starter';
import { enforceGuardrail } from '../../assignments';
import type { JobSlots } from '../launch/job-slots';
import { tenantClass } from '../../common';
import { readHandlerSecret } from '../../../db/handler-secrets.repository';
import type { SecretBox } from '../../../secrets/secret-box';
import { findHandlerContracts } from '../../../db/models.repository';

/** A job the workflow names but the database does not hold: nothing a retry can fix. */
export class JobMissing extends Error {}

/** What the dispatch step needs: the handler to call and everything it is told. */
export interface DispatchOrder {
  handler: Handler;
  job: {
    job_id: string;
    job_type: jobs.JobType;
    model_id: string;
    model_version: string;
    input: Record<string, unknown>;
    trigger_output?: Record<string, unknown>;
  };
  /** The completion route of the job, relative to the API's base URL. */
  completionPath: string;
  /** The bounded labels of the job's metric series (trigger, tenant class), never sent to the handler. */
  labels: { trigger: string; tenant: string };
  /** For an `http` handler: the secret its calls are signed with, and what checks a sync answer's output. */
  http?: { secret: string | null; outputProblem: (output: unknown) => string | undefined };
}

/**
 * The steps a job's workflow runs, as application functions: the activities (activities/index.ts) call these and
 * add only what is theirs (the run id, the handler clients, failure classification).
 */
export function createJobRuns(deps: {
  knex: Knex;
  schemas: UserSchemaCompiler;
  gateway: JobGateway;
  log: Logger;
  maxCascadeDepth: number;
  metrics?: ServiceMetrics;
  /** The tenants' running-job caps, which cascade jobs count against (the tenant of their source job). */
  slots?: JobSlots;
  /** Metric series per tenant id instead of per tenant class (METRICS_PER_TENANT). */
  perTenantMetrics?: boolean;
  /** Opens the `http` handlers' signing secrets for the moment of signing. */
  secrets: Pick<SecretBox, 'open'>;
}) {
  const { knex } = deps;

  async function loadJob(jobId: string): Promise<jobs.JobView> {
    const job = await jobs.findJob(knex, jobId);
    if (!job) throw new JobMissing(`job ${jobId} does not exist`);
    return job;
  }

  /** A sync answer is checked like a reported output, but a mismatch fails the job: the service itself recorded it. */
  async function httpOrder(modelId: string, jobType: jobs.JobType): Promise<NonNullable<DispatchOrder['http']>> {
    const schema = (await findHandlerContracts(knex, modelId))?.[jobType]?.output_schema;
    return {
      secret: await readHandlerSecret(knex, deps.secrets, modelId),
      outputProblem: (output) => (schema === undefined ? undefined : outputCheck(deps.schemas, schema, output)),
    };
  }

  return {
    /**
     * Claims the job for one workflow run. A run that does not own the job (another run of the same id claimed
     * it) gets the job's recorded answer and must do nothing else.
     */
    async claim(jobId: string, runId: string): Promise<StartClaim> {
      if (await jobs.claimForRun(knex, jobId, runId)) return { owned: true };
      const current = await loadJob(jobId);
      deps.log.warn({ jobId, owner: current.workflow_run_id, runId }, 'job already claimed by another workflow run; this run does nothing');
      return { owned: false, result: recordedAnswer(current) };
    },

    async dispatchOrder(jobId: string): Promise<DispatchOrder> {
      const job = await jobs.findJobWithHandlers(knex, jobId);
      if (!job) throw new JobMissing(`job ${jobId} does not exist`);
      if (!job.handlers) throw new JobMissing(`model ${job.model_id} does not exist`);
      const triggerOutput = job.metadata?.trigger_output as Record<string, unknown> | undefined;
      const handler = job.handlers[job.job_type];
      return {
        handler,
        ...(handler.type === 'http' ? { http: await httpOrder(job.model_id, job.job_type) } : {}),
        job: {
          job_id: job.job_id,
          job_type: job.job_type,
          model_id: job.model_id,
          model_version: job.model_version,
          input: job.input ?? {},
          ...(triggerOutput ? { trigger_output: triggerOutput } : {}),
        },
        completionPath: `/v2/models/${encodeURIComponent(job.model_id)}/versions/${encodeURIComponent(job.model_version)}/jobs/${job.job_id}/complete`,
        labels: { trigger: job.trigger, tenant: tenantClass(job.client_id, job.tenant_limits, deps.perTenantMetrics) },
      };
    },

    /**
     * Records the ECS task a dispatch started. Answers whether to stop it at once: the job was cancelled while the
     * task was being started (the cancellation's own stop found no task to stop then).
     */
    async recordTask(jobId: string, taskArn: string): Promise<boolean> {
      return (await jobs.recordTaskArn(knex, jobId, taskArn)) === 'cancelled';
    },

    /**
     * The workflow was cancelled: records the cancellation unless the API already did (a cancel made in Temporal
     * directly), and answers the ECS task to stop when the job is cancelled and started one.
     */
    async cancelled(jobId: string): Promise<{ stop?: { handler: Handler; taskArn: string; reason: string } }> {
      await loadJob(jobId);
      await recordCancellation(knex, jobId, 'temporal', 'the workflow was cancelled in Temporal');
      const job = await jobs.findJobWithHandlers(knex, jobId);
      if (job?.status !== 'cancelled' || !job.ecs_task_arn || !job.handlers) return {};
      const reason = `job ${jobId} cancelled by ${job.cancelled_by}${job.cancel_reason ? `: ${job.cancel_reason}` : ''}`;
      return { stop: { handler: job.handlers[job.job_type], taskArn: job.ecs_task_arn, reason } };
    },

    recordOutcome(jobId: string, report: CompletionReport | null): Promise<RecordedOutcome> {
      return recordOutcome(knex, deps.schemas, deps.log, jobId, report, deps.metrics);
    },

    /** The outcome, the cascade jobs it fires and the completion's answer, in one transaction (job-outcomes.ts `commitOutcome`). */
    async finish(jobId: string, report: CompletionReport | null, via?: ReportVia): Promise<FinishedJob> {
      const { finished, job, revision } = await commitOutcomeOf(deps, jobId, report, via);
      // After the commit: a canary job's outcome may trip its canary's guardrail (docs/progressive-delivery.md). A
      // failure here is logged, not thrown: the outcome stands, and the next canary job's outcome judges again.
      await enforceGuardrail(knex, job, revision).catch((err: unknown) =>
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

export type JobRuns = ReturnType<typeof createJobRuns>;
