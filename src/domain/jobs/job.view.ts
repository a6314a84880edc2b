import type { JobStatus, JobTrigger, JobType, LimitsOverride } from '../../shapes';
import type { CompletionResult } from '../../../workflows/definitions';

/**
 * A job as the ports (src/domain/ports) and the repositories (src/db/jobs.repository.ts) hand it to the rules: the
 * record of one job, not the API's response shape (that is `toJob` in src/domain/common/views.ts).
 */
export interface JobRow {
  job_id: string;
  model_id: string;
  model_version: string;
  job_type: JobType;
  trigger: JobTrigger;
  status: JobStatus;
  assignment_id: string | null;
  client_id: string | null;
  domain_uuid: string | null;
  service_uuid: string | null;
  source_job_id: string | null;
  subscription_id: string | null;
  cascade_depth: number;
  /** The first job of the cascade tree this job belongs to; the job itself unless it is a cascade. */
  root_job_id: string;
  /** The job this one re-runs. */
  rerun_of: string | null;
  /** The schedule that started it, and the fire's nominal time (trigger `schedule`). */
  schedule_id: string | null;
  scheduled_at: Date | null;
  /** Who cancelled the job (principal subject, or `temporal` for a cancel made in Temporal) and why. */
  cancelled_by: string | null;
  cancel_reason: string | null;
  /** The ECS task the dispatch started, stopped when the job is cancelled. */
  ecs_task_arn: string | null;
  input: Record<string, unknown> | null;
  output: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
  metadata: Record<string, unknown>;
  completion_result: CompletionResult | null;
  workflow_run_id: string | null;
  idempotency_key: string | null;
  idempotency_owner: string | null;
  /** Hash of the request that used the key: the same key with another request is refused. */
  idempotency_fingerprint: string | null;
  /** Temporal's priority key, 1 (first) to 5. */
  priority: number;
  /** Why a pending job waits unstarted (its tenant at max_running_jobs); null once it may start. */
  queued_reason: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  updated_at: Date;
}

/**
 * A job with the public ids of its domain and service, joined for responses and workflow search attributes, and
 * its tenant's limits override (its fairness weight and metric class).
 */
export interface JobView extends JobRow {
  domain_id: string | null;
  service_id: string | null;
  tenant_limits: LimitsOverride | null;
}
