import { id, obj, ref, ts } from './common';

/** Models, versions, handlers and handler contracts. */
export const modelSchemas: Record<string, object> = {
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
};
