import { id, described, ref, ts } from './common';
import { LIMIT_BOUNDS } from '../../domain/common';

const limitFields = {
  jobs_per_second: described(
    'Jobs the tenant may start per second on average (the refill rate of its token bucket); a start past the bucket is a 429',
    { type: 'number', ...LIMIT_BOUNDS.jobs_per_second },
  ),
  burst: described('Jobs the tenant may start at once after a quiet spell (the size of its token bucket)', {
    type: 'integer',
    ...LIMIT_BOUNDS.burst,
  }),
  max_running_jobs: described(
    'Started, unfinished jobs the tenant may have; a job past it is accepted (202) and waits as `pending` with a `queued_reason` until one of its jobs finishes',
    { type: 'integer', ...LIMIT_BOUNDS.max_running_jobs },
  ),
  fairness_weight: described(
    "The tenant's share of job dispatch in Temporal's task-queue fairness, against 1.0 for a tenant on the defaults",
    { type: 'number', ...LIMIT_BOUNDS.fairness_weight },
  ),
};

/** Clients, domains and feature definitions. */
export const tenantSchemas: Record<string, object> = {
  Client: {
    type: 'object',
    description: 'A tenant of the registry',
    required: ['client_id', 'client_uuid', 'name', 'status', 'limits', 'limits_override', 'created_at', 'updated_at'],
    properties: {
      client_id: described('Tenant identifier, as used in paths', id),
      client_uuid: described('Internal identifier', { type: 'string', format: 'uuid' }),
      name: described('Display name', { type: 'string' }),
      status: described('`suspended` tenants keep their data readable and editable but start no new jobs', {
        enum: ['active', 'suspended'],
      }),
      limits: ref('TenantLimits'),
      limits_override: described('What a platform administrator set for this tenant; null: the defaults apply', {
        oneOf: [ref('LimitsOverride'), { type: 'null' }],
      }),
      ...ts,
    },
  },
  TenantLimits: {
    type: 'object',
    description:
      "The limits that apply to the tenant: the service's configured defaults, each replaced by the tenant's override (docs/fairness.md)",
    required: ['jobs_per_second', 'burst', 'max_running_jobs', 'fairness_weight'],
    properties: {
      ...limitFields,
      max_running_jobs: {
        ...limitFields.max_running_jobs,
        type: ['integer', 'null'],
        description: `${limitFields.max_running_jobs.description}; null: no cap`,
      },
    },
  },
  LimitsOverride: {
    type: 'object',
    description: 'Per-tenant limits a platform administrator sets; a field left out keeps the default',
    additionalProperties: false,
    properties: limitFields,
  },
  UpsertClientRequest: {
    type: 'object',
    additionalProperties: false,
    properties: {
      name: described('Display name; omitted keeps the current one', { type: 'string', maxLength: 200 }),
      limits: described(
        "The tenant's limits override (administrators only, like the whole operation): replaces the current one; `null` or `{}` removes it, so the defaults apply; omitted keeps it",
        { oneOf: [ref('LimitsOverride'), { type: 'null' }] },
      ),
    },
  },
  ClientStatusRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: { status: described('The new status', { enum: ['active', 'suspended'] }) },
  },
  FeatureDefinition: {
    type: 'object',
    description: "A named input of a domain's services",
    additionalProperties: false,
    required: ['name', 'json_schema', 'mandatory'],
    properties: {
      name: described('Feature name, unique in the set: a letter or `_`, then letters, digits, `_`, `.`, `-`', {
        type: 'string',
        minLength: 1,
        maxLength: 128,
      }),
      json_schema: described(
        'JSON Schema 2020-12 of the value, using only type, enum, minimum, maximum, items, prefixItems, minItems, maxItems, oneOf and the annotations default, description, title, const, $schema. A `default` applies when the value is omitted.',
        { type: 'object' },
      ),
      mandatory: described('When true, a service must provide the value unless the schema has a default', { type: 'boolean' }),
    },
  },
  FeatureDefinitions: { type: 'array', description: 'Feature definitions (at most 500)', maxItems: 500, items: ref('FeatureDefinition') },
  Domain: {
    type: 'object',
    description: 'A group of services of one tenant, with its feature definitions',
    required: ['client_id', 'domain_id', 'domain_uuid', 'status', 'created_at', 'updated_at'],
    properties: {
      client_id: described('The owning tenant', id),
      domain_id: described('Identifier within the tenant', id),
      domain_uuid: described('Internal identifier', { type: 'string', format: 'uuid' }),
      status: described('Services can be initialized and service assignments bound only in `active` domains', {
        enum: ['not_ready', 'active'],
      }),
      ...ts,
      assignment: described('On model/assign: the new default assignment revision', ref('Assignment')),
      compatibility: described(
        'On model/assign: the version against the revision it replaces and the domain features',
        ref('AssignmentCompatibility'),
      ),
      preview: ref('ChangePreview'),
    },
  },
  CreateDomainRequest: {
    type: 'object',
    additionalProperties: false,
    properties: {
      domain_id: described('Identifier within the tenant; a UUIDv7 is generated when omitted', id),
      features: described('Initial feature definitions', ref('FeatureDefinitions')),
    },
  },
  DomainStatusRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: { status: described('The new status', { enum: ['not_ready', 'active'] }) },
  },
  ReplaceFeaturesRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['features'],
    properties: { features: described('The new set; stored services keep their features (persist-only)', ref('FeatureDefinitions')) },
  },
  FeaturesResponse: {
    type: 'object',
    required: ['features'],
    properties: {
      features: described('The live feature definitions', ref('FeatureDefinitions')),
      feature_mismatches: described(
        "On replace: where the definitions disagree with the freeze of the active default assignment's version (init validates against the freeze)",
        { type: 'array', items: ref('FeatureMismatch') },
      ),
      preview: ref('ChangePreview'),
    },
  },
  AssignModelRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['model_id'],
    properties: { model_id: described('The model whose newest active version becomes the domain default assignment', id) },
  },
};
