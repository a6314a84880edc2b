import { iso } from '../../db/types';
import type { AssignmentRow, Scope } from '../../db/assignments.repository';
import type { ClientRow } from '../../db/clients.repository';
import type { DomainRow } from '../../db/domains.repository';
import type { JobView } from '../../db/jobs.repository';
import type { ModelRow, VersionRow } from '../../db/models.repository';
import type { ServiceRow } from '../../db/services.repository';
import type { SubscriptionRow } from '../../db/subscriptions.repository';
import { effectiveLimits, type LimitDefaults } from './limits';

/**
 * The API shapes of every resource, built from repository rows in this one place (spec part 2 field names;
 * dates as ISO strings).
 */

/** A tenant with the limits that apply to it (its override over the defaults) and the override alone. */
export function toClient(row: ClientRow, defaults: LimitDefaults) {
  return {
    client_id: row.client_id,
    client_uuid: row.client_uuid,
    name: row.name,
    status: row.status,
    limits: effectiveLimits(defaults, row.limits),
    limits_override: row.limits,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function toDomain(row: DomainRow) {
  return {
    client_id: row.client_id,
    domain_id: row.domain_id,
    domain_uuid: row.domain_uuid,
    status: row.status,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function toService(row: ServiceRow, domainId: string) {
  return {
    domain_id: domainId,
    service_id: row.service_id,
    status: row.status,
    departure_datetime: iso(row.departure_datetime),
    provided_features: row.provided_features,
    resolved_features: row.resolved_features,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function toAssignment(row: AssignmentRow, scope: Pick<Scope, 'domainId' | 'serviceId'>) {
  return {
    assignment_id: row.assignment_id,
    domain_id: scope.domainId,
    ...(row.service_uuid ? { service_id: scope.serviceId } : {}),
    assignment_key: row.assignment_key,
    model_id: row.model_id,
    model_version: row.model_version,
    status: row.status,
    role: row.role,
    follows_alias: row.follows_alias ?? null,
    settings: row.settings,
    metadata: row.metadata,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    activated_at: iso(row.activated_at),
    archived_at: iso(row.archived_at),
    created_by: row.created_by,
    archived_by: row.archived_by,
    status_reason: row.status_reason ?? null,
  };
}

export function toModel(row: ModelRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    handlers: row.handlers,
    handler_contracts: row.handler_contracts,
    metadata: row.metadata,
    tags: row.tags,
    status: row.status,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function toVersion(row: VersionRow) {
  return { ...row, created_at: iso(row.created_at), updated_at: iso(row.updated_at), status_changed_at: iso(row.status_changed_at) };
}

export function toSubscription(row: SubscriptionRow) {
  return { ...row, created_at: iso(row.created_at), updated_at: iso(row.updated_at), status_changed_at: iso(row.status_changed_at) };
}

/** A job; `temporal` gives its workflow id and Web UI link (src/temporal/job-gateway.ts). */
export function toJob(row: JobView, temporal: { workflowId(jobId: string): string; uiUrl(jobId: string): string | null }) {
  return {
    job_id: row.job_id,
    model_id: row.model_id,
    model_version: row.model_version,
    assignment_id: row.assignment_id,
    job_type: row.job_type,
    status: row.status,
    trigger: row.trigger,
    client_id: row.client_id,
    domain_id: row.domain_id,
    service_id: row.service_id,
    source_job_id: row.source_job_id,
    subscription_id: row.subscription_id,
    root_job_id: row.root_job_id,
    depth: row.cascade_depth,
    rerun_of: row.rerun_of,
    schedule_id: row.schedule_id,
    scheduled_at: iso(row.scheduled_at),
    cancelled_by: row.cancelled_by,
    cancel_reason: row.cancel_reason,
    input: row.input,
    output: row.output,
    error: row.error,
    metadata: row.metadata,
    created_at: iso(row.created_at),
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    temporal_workflow_id: temporal.workflowId(row.job_id),
    temporal_url: temporal.uiUrl(row.job_id),
    priority: row.priority,
    queued_reason: row.queued_reason,
  };
}

/**
 * The cascade tree a job belongs to, shallowest first. Each job names its parent and the subscription that fired
 * it, its own error, the error of its cascade entry if that failed after the job was written, and the entries of
 * its own completion that started no job (`failed_cascades`).
 */
export function toLineage(asked: JobView, rows: JobView[], bound: { truncated: boolean; maxJobs: number }) {
  const entryErrors = new Map<string, string>();
  for (const row of rows) {
    for (const e of row.completion_result?.triggered_events ?? []) if (e.job_id && e.error) entryErrors.set(e.job_id, e.error);
  }
  return {
    job_id: asked.job_id,
    root_job_id: asked.root_job_id,
    truncated: bound.truncated,
    max_jobs: bound.maxJobs,
    jobs: rows.map((row) => ({
      job_id: row.job_id,
      parent_job_id: row.source_job_id,
      subscription_id: row.subscription_id,
      depth: row.cascade_depth,
      model_id: row.model_id,
      model_version: row.model_version,
      job_type: row.job_type,
      trigger: row.trigger,
      schedule_id: row.schedule_id,
      scheduled_at: iso(row.scheduled_at),
      status: row.status,
      error: row.error,
      cascade_error: entryErrors.get(row.job_id) ?? null,
      failed_cascades: (row.completion_result?.triggered_events ?? [])
        .filter((e) => !e.job_id && e.error)
        .map((e) => ({ subscription_id: e.subscription_id, error: e.error! })),
      created_at: iso(row.created_at),
      completed_at: iso(row.completed_at),
    })),
  };
}
