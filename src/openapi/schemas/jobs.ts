import { statusAuditFields } from './change-safety';
import { id, dateTime, described, obj, ts } from './common';
import { JOB_STATUSES, JOB_TRIGGERS, JOB_TYPES } from '../../shapes';

const nullable = (schema: { type: string }, description: string) => ({ ...schema, type: [schema.type, 'null'], description });
const jobStatus = { enum: JOB_STATUSES };
const jobTrigger = { enum: JOB_TRIGGERS };
/** Temporal's priority key (docs/fairness.md, "Priority"). */
export const jobPriority = described(
  "The job's priority, 1 (runs first) to 5: Temporal dispatches the tasks of a higher priority before those of a lower one, and balances tenants within one. Omitted: the default of the route (service init and update 2, inference, training and assignment runs 3, cascades 3, re-runs 4)",
  { type: 'integer', minimum: 1, maximum: 5 },
);

/** Jobs, completions and event subscriptions. */
export const jobSchemas: Record<string, object> = {
  JobStartRequest: {
    type: 'object',
    additionalProperties: false,
    properties: {
      input: described("The handler's input; checked against the model's input_schema when it has one", obj),
      metadata: described('Free-form metadata stored on the job', obj),
      priority: jobPriority,
    },
  },
  ModelJob: {
    type: 'object',
    description: 'A training or inference run of a model version: one Temporal workflow, `job-<job_id>`',
    required: [
      'job_id',
      'model_id',
      'model_version',
      'job_type',
      'status',
      'trigger',
      'metadata',
      'root_job_id',
      'depth',
      'schedule_id',
      'scheduled_at',
      'created_at',
      'temporal_workflow_id',
      'temporal_url',
      'priority',
      'queued_reason',
    ],
    properties: {
      job_id: described(
        'Durable job identifier: a UUIDv7 for a job a request started; a name-based UUIDv8 (version nibble 8) for a job the service derived from others, so that a repeat derives the same: a schedule fire (computable by a client: docs/schedules.md, "Identity"), a cascade, a shadow',
        { type: 'string' },
      ),
      model_id: described('The model', id),
      model_version: described('The model version that ran', id),
      assignment_id: nullable({ type: 'string' }, 'The assignment revision that started it, if any'),
      job_type: described('What the handler was asked to do', { enum: JOB_TYPES }),
      status: described(
        '`pending` (row written, workflow not yet running) → `running` (dispatched) → `success` | `failure` | `timed_out`; `cancelled` from pending or running (POST .../cancel)',
        jobStatus,
      ),
      trigger: described('What started it', jobTrigger),
      client_id: nullable({ type: 'string' }, 'The tenant it belongs to; null for jobs started on the global model routes'),
      domain_id: nullable({ type: 'string' }, 'The domain, for service and assignment jobs'),
      service_id: nullable({ type: 'string' }, 'The service, for service jobs'),
      source_job_id: nullable({ type: 'string' }, 'For cascade jobs: the job whose completion started it'),
      subscription_id: nullable({ type: 'string' }, 'For cascade jobs: the subscription that fired'),
      root_job_id: described('The first job of its cascade tree (the job itself unless it is a cascade)', { type: 'string' }),
      depth: described('Cascade depth: 0 for a root, its parent’s depth + 1 for a cascade', { type: 'integer', minimum: 0 }),
      rerun_of: nullable({ type: 'string' }, 'For re-runs: the job it re-runs'),
      schedule_id: nullable({ type: 'string' }, 'For scheduled jobs (trigger `schedule`): the schedule that started it'),
      scheduled_at: nullable(
        { type: 'string' },
        "For scheduled jobs: the fire's nominal time (the job id is derived from the schedule and it)",
      ),
      cancelled_by: nullable({ type: 'string' }, 'For cancelled jobs: who cancelled it (`user:<name>`, `client:<id>`, or `temporal`)'),
      cancel_reason: nullable({ type: 'string' }, 'For cancelled jobs: the reason given'),
      input: nullable({ type: 'object' }, 'What the handler received'),
      output: nullable({ type: 'object' }, 'What the handler reported on success'),
      error: nullable({ type: 'object' }, 'What the handler reported on failure, or why the job failed'),
      metadata: described('Free-form metadata; cascade jobs carry `trigger_output`', obj),
      created_at: described('When the job was accepted', dateTime),
      started_at: nullable({ type: 'string' }, 'When it was dispatched to its handler'),
      completed_at: nullable({ type: 'string' }, 'When it reached a terminal status'),
      temporal_workflow_id: described('The workflow id in Temporal', { type: 'string' }),
      temporal_url: nullable({ type: 'string' }, 'The workflow in the Temporal Web UI, when TEMPORAL_UI_URL is known'),
      priority: described('Its priority, 1 (first) to 5: the one the request named, or the default of its trigger', {
        type: 'integer',
        minimum: 1,
        maximum: 5,
      }),
      queued_reason: nullable(
        { type: 'string' },
        "Why a `pending` job has not started: its tenant is at max_running_jobs, and it starts when one of the tenant's jobs finishes; null otherwise",
      ),
    },
  },
  CancelJobRequest: {
    type: 'object',
    additionalProperties: false,
    properties: {
      reason: described('Why the job is cancelled; stored on the job as cancel_reason', { type: 'string', maxLength: 1000 }),
    },
  },
  JobLineage: {
    type: 'object',
    description:
      'The cascade tree a job belongs to: its root and every descendant, shallowest first, at most `max_jobs` (then `truncated`)',
    required: ['job_id', 'root_job_id', 'truncated', 'max_jobs', 'jobs'],
    properties: {
      job_id: described('The job asked about', { type: 'string' }),
      root_job_id: described('The root of its tree', { type: 'string' }),
      truncated: described('Whether the tree holds more jobs than shown (the deepest are left out)', { type: 'boolean' }),
      max_jobs: described('The most jobs an answer holds', { type: 'integer' }),
      jobs: {
        type: 'array',
        description: 'The root first, then each depth in order of creation',
        items: {
          type: 'object',
          required: [
            'job_id',
            'parent_job_id',
            'subscription_id',
            'depth',
            'model_id',
            'model_version',
            'job_type',
            'trigger',
            'schedule_id',
            'scheduled_at',
            'status',
            'error',
            'cascade_error',
            'failed_cascades',
            'created_at',
            'completed_at',
          ],
          properties: {
            job_id: described('The job', { type: 'string' }),
            parent_job_id: nullable({ type: 'string' }, 'The job whose completion started it; null for the root'),
            subscription_id: nullable({ type: 'string' }, 'The subscription that fired it; null for the root'),
            depth: described('0 for the root', { type: 'integer', minimum: 0 }),
            model_id: described('Its model', id),
            model_version: described('Its model version', id),
            job_type: described('What the handler was asked to do', { enum: JOB_TYPES }),
            trigger: described('What started it', jobTrigger),
            schedule_id: nullable({ type: 'string' }, 'The schedule that started it, for a scheduled job'),
            scheduled_at: nullable({ type: 'string' }, "The fire's nominal time, for a scheduled job"),
            status: described('Its status', jobStatus),
            error: nullable({ type: 'object' }, 'What its handler reported on failure, or why it failed'),
            cascade_error: nullable({ type: 'string' }, 'Why its cascade entry failed after the job was written (its start), if it did'),
            failed_cascades: {
              type: 'array',
              description: "Entries of this job's completion that started no job, with the reason",
              items: {
                type: 'object',
                required: ['subscription_id', 'error'],
                properties: {
                  subscription_id: described('The subscription that fired', { type: 'string' }),
                  error: described('Why it started nothing', { type: 'string' }),
                },
              },
            },
            created_at: described('When the job was accepted', dateTime),
            completed_at: nullable({ type: 'string' }, 'When it reached a final status'),
          },
        },
      },
    },
  },
  CompleteJobRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: {
      status: described("The handler's outcome", { enum: ['success', 'failure'] }),
      output: described(
        'Output metadata (storage paths, say); passed to downstream subscriptions as trigger_output. Stored as JSON: see the 400 for its bounds',
        obj,
      ),
      error: described('Structured failure detail, stored on the job when status is failure (the same bounds as `output`)', obj),
    },
  },
  CompletionResponse: {
    type: 'object',
    required: ['job_id', 'model_id', 'model_version', 'status', 'triggered_events'],
    properties: {
      job_id: described('The completed job', { type: 'string' }),
      model_id: described('Its model', id),
      model_version: described('Its model version', id),
      status: described('The recorded outcome', { enum: ['success', 'failure'] }),
      triggered_events: {
        type: 'array',
        description: 'One entry per subscription fired by a successful completion; empty for failures',
        items: {
          type: 'object',
          required: ['subscription_id'],
          properties: {
            subscription_id: described('The subscription that fired', { type: 'string', format: 'uuid' }),
            job_id: described('The cascade job it started', { type: 'string' }),
            error: described('Why it started nothing', { type: 'string' }),
          },
        },
      },
    },
  },
  CreateSubscriptionRequest: {
    type: 'object',
    additionalProperties: false,
    description:
      'An active subscription with the same trigger_event, target_model_id, target_action, input_source and input already on this model is a 409 naming it (whatever the label): two would start the target twice',
    required: ['trigger_event', 'target_model_id', 'target_action', 'input_source'],
    properties: {
      trigger_event: described('Which completion of this (source) model fires it', { enum: ['inference_complete', 'training_complete'] }),
      target_model_id: described('The model to run', id),
      target_action: described('What to run on the target', { enum: ['inference'] }),
      input_source: described("`stored`: send `input`; `trigger_output`: send the completion's output", {
        enum: ['stored', 'trigger_output'],
      }),
      input: described("Required when input_source is stored; validated against the target's inference input_schema", obj),
      label: described('Free-text label', { type: 'string', maxLength: 500 }),
    },
    if: { properties: { input_source: { const: 'stored' } } },
    then: { required: ['input'], properties: { input: obj } },
  },
  Subscription: {
    type: 'object',
    description: "Runs a target model when a source model's job completes",
    required: [
      'subscription_id',
      'source_model_id',
      'target_model_id',
      'trigger_event',
      'target_action',
      'input_source',
      'input',
      'label',
      'status',
      'created_at',
      'updated_at',
    ],
    properties: {
      subscription_id: described('Identifier, as in triggered_events', { type: 'string', format: 'uuid' }),
      source_model_id: described('The model whose completions fire it', id),
      target_model_id: described('The model it runs', id),
      trigger_event: described('Which completion fires it', { enum: ['inference_complete', 'training_complete'] }),
      target_action: described('What it runs', { enum: ['inference'] }),
      input_source: described("Where the target's input comes from", { enum: ['stored', 'trigger_output'] }),
      input: nullable({ type: 'object' }, 'The stored input (input_source stored)'),
      label: described('Free-text label', { type: 'string' }),
      status: described('`stale` after a change of the source or target contract (or handlers); `disabled` by hand or DELETE', {
        enum: ['active', 'stale', 'disabled'],
      }),
      ...ts,
      ...statusAuditFields,
    },
  },
  SubscriptionStatusRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: {
      status: described("`active` re-validates the stored input against the target's current contract", { enum: ['active', 'disabled'] }),
    },
  },
};
