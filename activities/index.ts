import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { ApplicationFailure, log as activityLog } from '@temporalio/activity';
import * as jobs from '../src/db/jobs.repository';
import * as models from '../src/db/models.repository';
import * as subs from '../src/db/subscriptions.repository';
import { recordOutcome, RecordedOutcome } from '../src/domain/job-outcomes';
import { fireSubscription, CascadeRejected, FireInput } from '../src/domain/cascades';
import type { UserSchemaCompiler } from '../src/domain/json-schemas';
import type { JobLauncher } from '../src/temporal/job-launcher';
import { dispatch, DispatchClients, DispatchResult, Handler } from './dispatch';
import { classifiedActivities } from './classified';
import type { CompletionReport, CompletionResult } from '../workflows/definitions';

export interface ActivityDeps {
  knex: Knex;
  schemas: UserSchemaCompiler;
  launcher: JobLauncher;
  clients: DispatchClients;
  log: Logger;
  publicBaseUrl: string;
  maxCascadeDepth: number;
}

/**
 * The job workflow's side effects, closing over the worker's dependencies. Their failures are classified
 * (activities/classified.ts): an outage is retried until it ends, a permanent refusal fails at once.
 */
export function createActivities(deps: ActivityDeps) {
  const { knex } = deps;

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

    async startJob(jobId: string): Promise<void> {
      await loadJob(jobId);
      await jobs.markRunning(knex, jobId);
    },

    async dispatchJob(jobId: string): Promise<DispatchResult> {
      const job = await loadJob(jobId);
      const model = await models.findModel(knex, job.model_id);
      if (!model) throw ApplicationFailure.create({ message: `model ${job.model_id} does not exist`, nonRetryable: true });
      const path = `/v2/models/${encodeURIComponent(job.model_id)}/versions/${encodeURIComponent(job.model_version)}/jobs/${job.job_id}/complete`;
      const triggerOutput = job.metadata?.trigger_output as Record<string, unknown> | undefined;
      return dispatch(deps.clients, model.handlers[job.job_type] as unknown as Handler, {
        job_id: job.job_id,
        job_type: job.job_type,
        model_id: job.model_id,
        model_version: job.model_version,
        input: job.input ?? {},
        ...(triggerOutput ? { trigger_output: triggerOutput } : {}),
        completion: { method: 'POST', path, url: `${deps.publicBaseUrl.replace(/\/$/, '')}${path}` },
      });
    },

    async recordCompletion(jobId: string, report: CompletionReport | null): Promise<RecordedOutcome> {
      return recordOutcome(knex, deps.schemas, deps.log, jobId, report);
    },

    async triggeredSubscriptions(jobId: string, triggerEvent: string): Promise<string[]> {
      const job = await loadJob(jobId);
      return (await subs.triggeredSubscriptions(knex, job.model_id, triggerEvent)).map((s) => s.subscription_id);
    },

    async fireSubscription(input: FireInput): Promise<{ job_id: string }> {
      try {
        return await fireSubscription({ knex, schemas: deps.schemas, launcher: deps.launcher, maxCascadeDepth: deps.maxCascadeDepth }, input);
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
    },
  });
}

export type Activities = ReturnType<typeof createActivities>;
