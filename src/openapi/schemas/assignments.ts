import { id, dateTime, obj, ref, ts } from './common';

/** Assignments and services. */
export const assignmentSchemas: Record<string, object> = {
  AssignmentFields: {
    type: 'object',
    required: ['model_id', 'model_version'],
    properties: {
      model_id: id,
      model_version: id,
      status: { enum: ['active', 'archived'] },
      role: { type: ['string', 'null'], maxLength: 200 },
      settings: obj,
      metadata: obj,
      service_updates: {
        type: 'array',
        maxItems: 1000,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['service_id', 'static_features'],
          properties: { service_id: id, static_features: obj },
        },
      },
    },
  },
  AssignmentBody: { type: 'object', allOf: [ref('AssignmentFields')], unevaluatedProperties: false },
  CreateAssignmentRequest: {
    type: 'object',
    allOf: [ref('AssignmentFields')],
    required: ['assignment_key'],
    properties: { assignment_key: id },
    unevaluatedProperties: false,
  },
  Assignment: {
    type: 'object',
    properties: {
      assignment_id: { type: 'string', format: 'uuid' }, domain_id: id, service_id: id, assignment_key: id,
      model_id: id, model_version: id, status: { enum: ['active', 'archived'] }, role: { type: ['string', 'null'] },
      settings: obj, metadata: obj, ...ts,
    },
  },
  InitServiceRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['service_id', 'departure_datetime', 'static_features'],
    properties: { service_id: id, departure_datetime: dateTime, static_features: obj },
  },
  UpdateServiceRequest: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: { departure_datetime: dateTime, static_features: obj },
  },
  ServiceStatusRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: { status: { enum: ['in_progress', 'available', 'failed', 'not_found'] } },
  },
  Service: {
    type: 'object',
    properties: {
      domain_id: id, service_id: id, status: { enum: ['in_progress', 'available', 'failed', 'not_found'] },
      departure_datetime: dateTime, provided_features: obj, resolved_features: obj, ...ts,
    },
  },
  JobAccepted: {
    type: 'object',
    required: ['job_id'],
    properties: { service_id: id, job_id: { type: 'string' }, job_url: { type: 'string' } },
  },
};
