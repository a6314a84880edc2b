import { Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import type { JobView } from '../db/jobs.repository';
import * as sa from '../../workflows/search-attributes';
import type { ModelJobInput } from '../../workflows/definitions';
import type { Config } from '../config';

export function workflowIdFor(jobId: string): string {
  return `job-${jobId}`;
}

export function jobSearchAttributes(job: JobView, status: string): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [
    { key: sa.JOB_ID, value: job.job_id },
    { key: sa.MODEL_ID, value: job.model_id },
    { key: sa.MODEL_VERSION, value: job.model_version },
    { key: sa.JOB_TYPE, value: job.job_type },
    { key: sa.JOB_TRIGGER, value: job.trigger },
    { key: sa.JOB_STATUS, value: status },
  ];
  if (job.client_id) pairs.push({ key: sa.CLIENT_ID, value: job.client_id });
  if (job.domain_id) pairs.push({ key: sa.DOMAIN_ID, value: job.domain_id });
  if (job.service_id) pairs.push({ key: sa.SERVICE_ID, value: job.service_id });
  return pairs;
}

function summary(job: JobView): string {
  const where = job.client_id ? ` for ${[job.client_id, job.domain_id, job.service_id].filter(Boolean).join('/')}` : '';
  return `${job.job_type} of ${job.model_id}@${job.model_version}${where} (${job.trigger})`;
}

export interface JobLauncher {
  /** Starts the job's workflow; starting one that already exists is a no-op, so callers may retry freely. */
  launch(job: JobView): Promise<void>;
  /** Link to the job in the Temporal Web UI, when TEMPORAL_UI_URL is configured. */
  uiUrl(jobId: string): string | null;
}

export function createJobLauncher(options: {
  client: Client;
  taskQueue: string;
  namespace: string;
  uiUrl?: string;
  completionDeadlineSeconds: number;
}): JobLauncher {
  const { client, taskQueue, namespace, uiUrl, completionDeadlineSeconds } = options;
  return {
    async launch(job) {
      const input: ModelJobInput = { jobId: job.job_id, completionDeadlineSeconds };
      try {
        await client.workflow.start('modelJobWorkflow', {
          workflowId: workflowIdFor(job.job_id),
          taskQueue,
          args: [input],
          typedSearchAttributes: jobSearchAttributes(job, 'pending'),
          memo: {
            job_id: job.job_id, model: `${job.model_id}@${job.model_version}`, job_type: job.job_type, trigger: job.trigger,
            client_id: job.client_id, domain_id: job.domain_id, service_id: job.service_id, source_job_id: job.source_job_id,
          },
          staticSummary: summary(job),
          staticDetails: `Job ${job.job_id}. Report completion with POST /v2/models/${job.model_id}/versions/${job.model_version}/jobs/${job.job_id}/complete`,
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    },
    uiUrl(jobId) {
      if (!uiUrl) return null;
      return `${uiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowIdFor(jobId))}`;
    },
  };
}

/** The launcher as configured: task queue, namespace, UI link and completion deadline from the config. */
export function jobLauncherFor(client: Client, config: Config): JobLauncher {
  return createJobLauncher({
    client,
    taskQueue: config.temporal.taskQueue,
    namespace: config.temporal.namespace,
    uiUrl: config.temporal.uiUrl,
    completionDeadlineSeconds: config.jobs.completionDeadlineSeconds,
  });
}
