import * as jobs from '../../../db/jobs.repository';
import type { Handler } from '../../../shapes';
import type { StartClaim } from '../../../../workflows/definitions';
import { outputCheck, recordCancellation, recordedAnswer } from './job-outcomes';
import { tenantClass } from '../../common';
import { readHandlerSecret } from '../../../db/handler-secrets.repository';
import { findHandlerContracts } from '../../../db/models.repository';
import type { JobRunsDeps } from './job-runs';

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

/** The steps of a job's run up to its outcome: the claim, the dispatch order, the ECS task and a cancellation. */
export function createDispatchSteps(deps: JobRunsDeps) {
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
      await recordCancellation(deps, jobId, 'temporal', 'the workflow was cancelled in Temporal');
      const job = await jobs.findJobWithHandlers(knex, jobId);
      if (job?.status !== 'cancelled' || !job.ecs_task_arn || !job.handlers) return {};
      const reason = `job ${jobId} cancelled by ${job.cancelled_by}${job.cancel_reason ? `: ${job.cancel_reason}` : ''}`;
      return { stop: { handler: job.handlers[job.job_type], taskArn: job.ecs_task_arn, reason } };
    },
  };
}
