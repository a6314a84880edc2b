import type { JobView } from '../../src/domain/jobs';
import type { SubscriptionWithTarget } from '../../src/domain/models';

// The in-memory stores live beside the Postgres ones (src/db/memory/); this file keeps the tests' record builders.
export { MemoryJobStore, MemoryOutboxStore, MemorySubscriptionStore } from '../../src/db/memory';

const EPOCH = new Date(0);

/** A job row as the store returns it: a finished inference of model `m` version 1 unless `fields` say otherwise. */
export function jobView(fields: Partial<JobView> & Pick<JobView, 'job_id'>): JobView {
  return {
    model_id: 'm',
    model_version: '1',
    job_type: 'inference',
    trigger: 'direct',
    status: 'success',
    assignment_id: null,
    client_id: null,
    domain_uuid: null,
    service_uuid: null,
    source_job_id: null,
    subscription_id: null,
    cascade_depth: 0,
    root_job_id: fields.job_id,
    rerun_of: null,
    schedule_id: null,
    scheduled_at: null,
    cancelled_by: null,
    cancel_reason: null,
    ecs_task_arn: null,
    input: {},
    output: null,
    error: null,
    metadata: {},
    completion_result: null,
    workflow_run_id: null,
    idempotency_key: null,
    idempotency_owner: null,
    idempotency_fingerprint: null,
    priority: 3,
    queued_reason: null,
    created_at: EPOCH,
    started_at: null,
    completed_at: null,
    updated_at: EPOCH,
    domain_id: null,
    service_id: null,
    tenant_limits: null,
    ...fields,
  };
}

/** An active subscription of `m` on inference_complete to `target`, whose target exists with active version 1. */
export function subscription(
  fields: Partial<SubscriptionWithTarget> & Pick<SubscriptionWithTarget, 'subscription_id'>,
): SubscriptionWithTarget {
  return {
    source_model_id: 'm',
    target_model_id: 'target',
    trigger_event: 'inference_complete',
    target_action: 'inference',
    input_source: 'trigger_output',
    input: null,
    label: fields.subscription_id,
    status: 'active',
    created_at: EPOCH,
    updated_at: EPOCH,
    created_by: null,
    status_changed_by: null,
    status_changed_at: null,
    target_exists: true,
    target_contracts: null,
    target_version: '1',
    ...fields,
  };
}
