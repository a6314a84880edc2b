import { id, dateTime, obj, ts } from './common';

/** Jobs, completions and event subscriptions. */
export const jobSchemas: Record<string, object> = {
  JobStartRequest: {
    type: 'object',
    additionalProperties: false,
    properties: { input: obj, metadata: obj },
  },
  ModelJob: {
    type: 'object',
    properties: {
      job_id: { type: 'string' }, model_id: id, model_version: id, assignment_id: { type: ['string', 'null'] },
      job_type: { enum: ['inference', 'training'] },
      status: { enum: ['pending', 'running', 'success', 'failure', 'timed_out'] },
      trigger: { enum: ['service_init', 'service_update', 'direct', 'assignment', 'cascade'] },
      client_id: { type: ['string', 'null'] }, domain_id: { type: ['string', 'null'] }, service_id: { type: ['string', 'null'] },
      input: { type: ['object', 'null'] }, output: { type: ['object', 'null'] }, error: { type: ['object', 'null'] },
      metadata: obj, created_at: dateTime, started_at: { type: ['string', 'null'] }, completed_at: { type: ['string', 'null'] },
      temporal_workflow_id: { type: 'string' }, temporal_url: { type: ['string', 'null'] },
    },
  },
  CompleteJobRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: { status: { enum: ['success', 'failure'] }, output: obj, error: obj },
  },
  CompletionResponse: {
    type: 'object',
    required: ['job_id', 'model_id', 'model_version', 'status', 'triggered_events'],
    properties: {
      job_id: { type: 'string' }, model_id: id, model_version: id, status: { enum: ['success', 'failure'] },
      triggered_events: {
        type: 'array',
        items: {
          type: 'object',
          required: ['subscription_id'],
          properties: { subscription_id: { type: 'string', format: 'uuid' }, job_id: { type: 'string' }, error: { type: 'string' } },
        },
      },
    },
  },
  CreateSubscriptionRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['trigger_event', 'target_model_id', 'target_action', 'input_source'],
    properties: {
      trigger_event: { enum: ['inference_complete', 'training_complete'] },
      target_model_id: id,
      target_action: { enum: ['inference'] },
      input_source: { enum: ['stored', 'trigger_output'] },
      input: obj,
      label: { type: 'string', maxLength: 500 },
    },
    if: { properties: { input_source: { const: 'stored' } } },
    then: { required: ['input'] },
  },
  Subscription: {
    type: 'object',
    properties: {
      subscription_id: { type: 'string', format: 'uuid' }, source_model_id: id, target_model_id: id,
      trigger_event: { type: 'string' }, target_action: { type: 'string' }, input_source: { type: 'string' },
      input: { type: ['object', 'null'] }, label: { type: 'string' }, status: { enum: ['active', 'stale', 'disabled'] }, ...ts,
    },
  },
  SubscriptionStatusRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: { status: { enum: ['active', 'disabled'] } },
  },
};
