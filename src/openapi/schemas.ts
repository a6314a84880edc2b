/** Component schemas of the OpenAPI document: the single source for request validation and the docs. */

const id = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const obj = { type: 'object' } as const;
const ts = { created_at: dateTime, updated_at: dateTime } as const;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export const IDENTIFIER_PATTERN = id.pattern;

export const schemas: Record<string, object> = {
  Identifier: id,
  ErrorResponse: {
    type: 'object',
    required: ['success', 'message'],
    properties: { success: { type: 'boolean', const: false }, message: { type: 'string' } },
  },
  AssignBlockedErrorResponse: {
    type: 'object',
    required: ['error', 'blocking_services'],
    properties: {
      error: { type: 'string' },
      blocking_services: {
        type: 'array',
        items: {
          type: 'object',
          required: ['service_id', 'feature', 'value'],
          properties: { service_id: { type: 'string' }, feature: { type: 'string' }, value: {} },
        },
      },
    },
  },
  Health: {
    type: 'object',
    properties: { status: { enum: ['ok', 'degraded'] }, database: { type: 'string' }, temporal: { type: 'string' } },
  },
  Page: {
    type: 'object',
    required: ['items', 'next_cursor'],
    properties: { items: { type: 'array' }, next_cursor: { type: ['string', 'null'] } },
  },

  // Tenants
  Client: {
    type: 'object',
    properties: { client_id: id, client_uuid: { type: 'string', format: 'uuid' }, name: { type: 'string' }, status: { enum: ['active', 'suspended'] }, ...ts },
  },
  UpsertClientRequest: {
    type: 'object',
    additionalProperties: false,
    properties: { name: { type: 'string', maxLength: 200 } },
  },
  ClientStatusRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: { status: { enum: ['active', 'suspended'] } },
  },
  FeatureDefinition: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'json_schema', 'mandatory'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 128 },
      json_schema: { type: 'object' },
      mandatory: { type: 'boolean' },
    },
  },
  FeatureDefinitions: { type: 'array', maxItems: 500, items: ref('FeatureDefinition') },
  Domain: {
    type: 'object',
    properties: {
      client_id: id, domain_id: id, domain_uuid: { type: 'string', format: 'uuid' },
      status: { enum: ['not_ready', 'active'] }, ...ts,
    },
  },
  CreateDomainRequest: {
    type: 'object',
    additionalProperties: false,
    properties: { domain_id: id, features: ref('FeatureDefinitions') },
  },
  DomainStatusRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: { status: { enum: ['not_ready', 'active'] } },
  },
  ReplaceFeaturesRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['features'],
    properties: { features: ref('FeatureDefinitions') },
  },
  FeaturesResponse: { type: 'object', properties: { features: ref('FeatureDefinitions') } },
  AssignModelRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['model_id'],
    properties: { model_id: id },
  },

  // Models
  LambdaHandler: {
    type: 'object',
    additionalProperties: false,
    required: ['type', 'arn'],
    properties: {
      type: { const: 'lambda' },
      arn: {
        type: 'string',
        description: 'A Lambda function ARN or function name',
        pattern: '^(arn:aws[a-zA-Z-]*:lambda:[a-z]{2}(-[a-z]+)+-\\d+:\\d{12}:function:[A-Za-z0-9_-]{1,64}(:(\\$LATEST|[A-Za-z0-9_-]{1,128}))?|[A-Za-z0-9_-]{1,64})$',
      },
      version: { type: 'string', description: 'Version or alias qualifier', pattern: '^(\\$LATEST|[A-Za-z0-9_-]{1,128})$' },
    },
  },
  ContainerTaskHandler: {
    type: 'object',
    additionalProperties: false,
    required: ['type', 'target'],
    properties: {
      type: { const: 'container_task' },
      target: {
        type: 'string',
        description: '<cluster>/<task_definition>: a cluster short name, then a family, optionally family:revision',
        pattern: '^[A-Za-z0-9_-]{1,255}/[A-Za-z0-9_-]{1,255}(:[1-9][0-9]*)?$',
      },
      launch: {
        type: 'object',
        additionalProperties: false,
        properties: {
          launch_type: { enum: ['FARGATE', 'EC2', 'EXTERNAL'] },
          subnets: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 16 },
          security_groups: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 5 },
          assign_public_ip: { type: 'boolean' },
          container_name: { type: 'string', minLength: 1, maxLength: 255 },
        },
      },
    },
  },
  InProcessHandler: {
    type: 'object',
    additionalProperties: false,
    required: ['type', 'name'],
    properties: {
      type: { const: 'in_process' },
      name: { type: 'string', description: 'An implementation registered in the service', pattern: '^[A-Za-z0-9_.-]{1,128}$' },
    },
  },
  Handler: {
    type: 'object',
    required: ['type'],
    properties: { type: { enum: ['lambda', 'container_task', 'in_process'] } },
    oneOf: [ref('LambdaHandler'), ref('ContainerTaskHandler'), ref('InProcessHandler')],
  },
  Handlers: {
    type: 'object',
    additionalProperties: false,
    required: ['training', 'inference'],
    properties: { training: ref('Handler'), inference: ref('Handler') },
  },
  HandlerContract: {
    type: 'object',
    additionalProperties: false,
    properties: { input_schema: { type: ['object', 'boolean'] }, output_schema: { type: ['object', 'boolean'] } },
  },
  HandlerContracts: {
    type: ['object', 'null'],
    additionalProperties: false,
    properties: { training: ref('HandlerContract'), inference: ref('HandlerContract') },
  },
  CreateModelRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'description', 'metadata', 'handlers'],
    properties: {
      id,
      name: { type: 'string', minLength: 1, maxLength: 200 },
      description: { type: 'string', maxLength: 10000 },
      metadata: obj,
      handlers: ref('Handlers'),
      handler_contracts: ref('HandlerContracts'),
      version: { ...id, description: 'The first version, created pending; default "1"' },
      version_description: { type: 'string', maxLength: 10000 },
      version_metadata: obj,
      features: ref('FeatureDefinitions'),
    },
  },
  UpdateModelRequest: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 200 },
      description: { type: 'string', maxLength: 10000 },
      metadata: obj,
      handlers: ref('Handlers'),
      handler_contracts: ref('HandlerContracts'),
    },
  },
  ModelVersion: {
    type: 'object',
    properties: {
      model_id: id, version: id, description: { type: 'string' }, metadata: obj,
      status: { enum: ['pending', 'training', 'active', 'failed'] }, features: ref('FeatureDefinitions'), ...ts,
    },
  },
  Model: {
    type: 'object',
    properties: {
      id, name: { type: 'string' }, description: { type: 'string' }, handlers: ref('Handlers'),
      handler_contracts: ref('HandlerContracts'), metadata: obj, status: { enum: ['pending', 'active'] }, ...ts,
    },
  },
  ModelEnvelope: {
    type: 'object',
    required: ['model', 'version'],
    properties: {
      model: ref('Model'),
      version: { oneOf: [ref('ModelVersion'), { type: 'null' }] },
      stale_subscriptions: { type: 'array', items: { type: 'string', format: 'uuid' }, description: 'On update: the subscriptions this change made stale' },
    },
  },
  CreateVersionRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['version', 'features'],
    properties: { version: id, description: { type: 'string', maxLength: 10000 }, metadata: obj, features: ref('FeatureDefinitions') },
  },
  VersionStatusRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: { status: { enum: ['pending', 'training', 'active', 'failed'] } },
  },

  // Assignments and services
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

  // Jobs and events
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
