import { jobPriority } from './jobs';
import { id, dateTime, described, obj, ref, ts } from './common';
import { assignmentAuditFields } from './change-safety';

const serviceStatus = { enum: ['in_progress', 'available', 'failed', 'not_found'] };

/** Assignments and services. */
export const assignmentSchemas: Record<string, object> = {
  AssignmentFields: {
    type: 'object',
    required: ['model_id', 'model_version'],
    properties: {
      model_id: described('The model to bind', id),
      model_version: described('A version of that model; it must be `active`', id),
      follows_alias: described(
        'Follow this alias of the model: `model_version` must be the version it points at now, and every move of the alias re-points this assignment as a new revision (docs/registry.md)',
        { type: ['string', 'null'], pattern: '^[a-z][a-z0-9_-]{0,62}$' },
      ),
      status: described('`active` (default) makes this revision runnable; `archived` retires the key', { enum: ['active', 'archived'] }),
      role: described(
        "`null` (default): the primary under its key. `canary`: a share of the domain's services (`settings.share`, 0–100) runs this version instead of the primary under `settings.primary_key` (default `default`). `shadow`: every inference job of that primary also runs on this version as a shadow job. Canary and shadow are domain-scope only (docs/progressive-delivery.md); any other value is free-form",
        { type: ['string', 'null'], maxLength: 200 },
      ),
      settings: described(
        'Free-form settings; for a canary or shadow: `primary_key`, `share` (canary, 0–100), `guardrail` `{max_failure_rate (0–1), min_jobs}` (canary), `tolerance` and `tolerances` `{field: number}` (numeric agreement of shadows)',
        obj,
      ),
      metadata: described('Free-form metadata', obj),
      service_updates: {
        type: 'array',
        description:
          "Only on the domain `default` key: patches merged into provided_features of services that have not departed, validated against the target version's freeze in the same transaction",
        maxItems: 1000,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['service_id', 'static_features'],
          properties: {
            service_id: described('A service of the domain', id),
            static_features: described('Features to merge into its provided_features', obj),
          },
        },
      },
    },
  },
  AssignmentBody: { type: 'object', allOf: [ref('AssignmentFields')], unevaluatedProperties: false },
  CreateAssignmentRequest: {
    type: 'object',
    allOf: [ref('AssignmentFields')],
    required: ['assignment_key'],
    properties: {
      assignment_key: described('Stable capability key within the domain or service; `default` is the domain default assignment', id),
    },
    unevaluatedProperties: false,
  },
  Assignment: {
    type: 'object',
    description: 'One revision of a keyed binding of a model version to a domain or a service',
    required: [
      'assignment_id',
      'domain_id',
      'assignment_key',
      'model_id',
      'model_version',
      'status',
      'role',
      'settings',
      'metadata',
      'created_at',
      'updated_at',
    ],
    properties: {
      assignment_id: described('Identifier of this revision; every upsert makes a new one', { type: 'string', format: 'uuid' }),
      domain_id: described('The domain', id),
      service_id: described('Present for service-scoped assignments', id),
      assignment_key: described('Stable capability key; `default` on a domain is the domain default assignment', id),
      model_id: described('The bound model', id),
      model_version: described('The bound version', id),
      status: described('`active` (runnable) or `archived` (kept for the jobs that used it)', { enum: ['active', 'archived'] }),
      role: described('Free-form role', { type: ['string', 'null'] }),
      follows_alias: described('The alias of the model this assignment follows, or null', { type: ['string', 'null'] }),
      settings: described('Free-form settings', obj),
      metadata: described('Free-form metadata', obj),
      ...ts,
      ...assignmentAuditFields,
      compatibility: described(
        'On an upsert: the version against the revision it replaces and the domain features',
        ref('AssignmentCompatibility'),
      ),
      preview: ref('ChangePreview'),
    },
  },
  InitServiceRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['service_id', 'departure_datetime', 'static_features'],
    properties: {
      service_id: described('Identifier within the domain; an existing service is re-initialized', id),
      departure_datetime: described('When the service departs; departed services no longer block assignments', dateTime),
      static_features: described("Feature values, validated against the default assignment's frozen feature schema; `{}` for none", obj),
      priority: jobPriority,
    },
  },
  UpdateServiceRequest: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      departure_datetime: described('New departure; changing only this runs nothing', dateTime),
      static_features: described('Replaces provided_features; inference re-runs when resolved_features change', obj),
    },
  },
  ServiceStatusRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: { status: described('The new status (see the transition table in docs/decisions.md)', serviceStatus) },
  },
  Service: {
    type: 'object',
    description: 'A unit of work of a domain (a departure, say) with its features',
    required: [
      'domain_id',
      'service_id',
      'status',
      'departure_datetime',
      'provided_features',
      'resolved_features',
      'created_at',
      'updated_at',
    ],
    properties: {
      domain_id: described('The domain', id),
      service_id: described('Identifier within the domain', id),
      status: described('`in_progress` while its inference job runs, then `available` or `failed`', serviceStatus),
      departure_datetime: described('When the service departs', dateTime),
      provided_features: described('The features as the caller sent them', obj),
      resolved_features: described('The features after defaults: what inference used', obj),
      job_id: described('On update: the inference job started because resolved_features changed', { type: 'string' }),
      ...ts,
      preview: ref('ChangePreview'),
    },
  },
  JobAccepted: {
    type: 'object',
    description: 'A job was started (or, for a repeated Idempotency-Key, the first one is returned)',
    required: ['job_id', 'job_url'],
    properties: {
      service_id: described('The service, for service init and service assignment runs', id),
      job_id: described('The job; read it at GET /v2/jobs/{job_id}', { type: 'string' }),
      job_url: described("The job's workflow in the Temporal Web UI, when TEMPORAL_UI_URL is known", { type: ['string', 'null'] }),
    },
  },
};
