import { id, described, obj, ref, ts } from './common';
import { statusAuditFields } from './change-safety';

const versionSource = { type: 'string', minLength: 1, maxLength: 1000 } as const;

/** Models, versions, handlers and handler contracts. */
export const modelSchemas: Record<string, object> = {
  LambdaHandler: {
    type: 'object',
    description: 'An AWS Lambda function, invoked asynchronously with the job payload; it reports through the completion route',
    additionalProperties: false,
    required: ['type', 'arn'],
    properties: {
      type: described('Handler kind', { const: 'lambda' }),
      arn: {
        type: 'string',
        description: 'A Lambda function ARN or function name',
        pattern:
          '^(arn:aws[a-zA-Z-]*:lambda:[a-z]{2}(-[a-z]+)+-\\d+:\\d{12}:function:[A-Za-z0-9_-]{1,64}(:(\\$LATEST|[A-Za-z0-9_-]{1,128}))?|[A-Za-z0-9_-]{1,64})$',
      },
      version: { type: 'string', description: 'Version or alias qualifier', pattern: '^(\\$LATEST|[A-Za-z0-9_-]{1,128})$' },
    },
  },
  ContainerTaskHandler: {
    type: 'object',
    description: 'An ECS task, run with the job payload in MOS_JOB; it reports through the completion route',
    additionalProperties: false,
    required: ['type', 'target'],
    properties: {
      type: described('Handler kind', { const: 'container_task' }),
      target: {
        type: 'string',
        description: '<cluster>/<task_definition>: a cluster short name, then a family, optionally family:revision',
        pattern: '^[A-Za-z0-9_-]{1,255}/[A-Za-z0-9_-]{1,255}(:[1-9][0-9]*)?$',
      },
      launch: {
        type: 'object',
        description: 'RunTask options; container_name (default: the family) is the container that receives the job',
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
    description:
      'An implementation registered in the service. Built-ins: `echo` returns its input, `sum` adds `input.values`, `fail` always fails, `manual` waits for a report on the completion route',
    additionalProperties: false,
    required: ['type', 'name'],
    properties: {
      type: described('Handler kind', { const: 'in_process' }),
      name: { type: 'string', description: 'An implementation registered in the service', pattern: '^[A-Za-z0-9_.-]{1,128}$' },
    },
  },
  HttpHandler: {
    type: 'object',
    description:
      'A model server (KServe, Triton, TorchServe, BentoML, your own): the service POSTs the job payload (webhooks `httpHandlerCall`) to `url`, signed ' +
      "with the model's `http_handler_secret` like outbound webhooks, under the webhooks' target policy. `sync`: a 2xx JSON object answer is the " +
      "job's output (checked against the output_schema), a 4xx fails the job with the answer's message; `async`: a 2xx accepts the job, which " +
      'the server completes through the completion route with `completion.token`. 5xx, 408, 429 and time-outs are retried until the job deadline',
    additionalProperties: false,
    required: ['type', 'url', 'mode'],
    properties: {
      type: described('Handler kind', { const: 'http' }),
      url: { type: 'string', format: 'uri', maxLength: 2048, description: 'https (http only where WEBHOOK_ALLOW_HTTP allows it)' },
      mode: described('Whether the answer is the completion (`sync`) or only accepts the job (`async`)', { enum: ['sync', 'async'] }),
      timeout_seconds: described('Longest wait for the whole answer; default 30', { type: 'integer', minimum: 1, maximum: 900 }),
      connect_timeout_seconds: described('Longest wait for the connection; default 5', { type: 'integer', minimum: 1, maximum: 60 }),
    },
  },
  Handler: {
    type: 'object',
    description:
      'Where a job runs, by `type`: `lambda` needs `arn`; `container_task` needs `target`; `in_process` needs `name`; `http` needs `url` and `mode`',
    required: ['type'],
    properties: { type: { enum: ['lambda', 'container_task', 'in_process', 'http'] } },
    oneOf: [ref('LambdaHandler'), ref('ContainerTaskHandler'), ref('InProcessHandler'), ref('HttpHandler')],
  },
  Handlers: {
    type: 'object',
    additionalProperties: false,
    required: ['training', 'inference'],
    properties: { training: described('Runs training jobs', ref('Handler')), inference: described('Runs inference jobs', ref('Handler')) },
  },
  HandlerContract: {
    type: 'object',
    additionalProperties: false,
    properties: {
      input_schema: described('JSON Schema 2020-12 of the job input; checked before dispatch (422)', { type: ['object', 'boolean'] }),
      output_schema: described('JSON Schema 2020-12 of the reported output; a mismatch is only logged', { type: ['object', 'boolean'] }),
    },
  },
  HandlerContracts: {
    type: ['object', 'null'],
    description: 'Typed contracts per handler; when set, they (not the handlers) decide which subscriptions go stale',
    additionalProperties: false,
    properties: { training: ref('HandlerContract'), inference: ref('HandlerContract') },
  },
  ModelArtifact: {
    type: 'object',
    description:
      'A file that makes up a model version: where it is (never fetched by the service), its digest to verify it by, its size and format',
    additionalProperties: false,
    required: ['name', 'uri', 'sha256', 'size_bytes', 'format'],
    properties: {
      name: described('Unique within the version, e.g. `model` or `tokenizer`', {
        type: 'string',
        pattern: '^[A-Za-z0-9][A-Za-z0-9_./-]{0,127}$',
      }),
      uri: described(
        '`s3://<bucket>/<key>`, `gs://<bucket>/<object>`, `https://<host>/<path>` or `file:///<absolute path>`; no credentials',
        { type: 'string', minLength: 1, maxLength: 2048 },
      ),
      sha256: described('SHA-256 of the content, 64 lowercase hexadecimal digits', { type: 'string', pattern: '^[0-9a-f]{64}$' }),
      size_bytes: described('Size of the content in bytes', { type: 'integer', minimum: 0 }),
      format: described('Free, e.g. `sklearn-pickle`, `onnx`, `torchscript`, `safetensors`', {
        type: 'string',
        pattern: '^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$',
      }),
    },
  },
  ModelArtifacts: {
    type: 'array',
    description: 'The files of a version (at most 32, names unique); they never change once the version is active',
    maxItems: 32,
    items: ref('ModelArtifact'),
  },
  VersionArtifactsRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['artifacts'],
    properties: {
      artifacts: ref('ModelArtifacts'),
      source: described('Where the version came from (free text); unchanged when omitted', versionSource),
    },
  },
  AliasRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['version'],
    properties: {
      version: described('The version the alias points at: active (a deprecated or archived one is 422)', id),
      from_version: described(
        'Move only if the alias points at this version now (compare-and-set): a move that lost a race to another is 409 instead of undoing it',
        id,
      ),
    },
  },
  Alias: {
    type: 'object',
    description: "A model's name for one of its versions (`champion`, `challenger`)",
    required: ['model_id', 'alias', 'version', 'updated_by', 'created_at', 'updated_at'],
    properties: {
      model_id: described('The model', id),
      alias: described("Lower case letters, digits, _ and -, a letter first; never one of the model's version strings", { type: 'string' }),
      version: described('The version it points at', id),
      updated_by: described('Who last set it', { type: ['string', 'null'] }),
      ...ts,
      resolved: described('On a read or write of one alias: the version it points at', ref('ModelVersion')),
      repointed: {
        type: 'array',
        description: 'On a move: the new revision of every assignment that follows the alias (each with its compatibility report)',
        items: ref('Assignment'),
      },
      preview: ref('ChangePreview'),
    },
  },
  CreateModelRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'description', 'metadata', 'handlers'],
    properties: {
      id: described('Model identifier; a UUIDv7 is generated when omitted', id),
      name: described('Display name', { type: 'string', minLength: 1, maxLength: 200 }),
      description: described('What the model does', { type: 'string', maxLength: 10000 }),
      metadata: described('Free-form metadata', obj),
      handlers: ref('Handlers'),
      handler_contracts: ref('HandlerContracts'),
      version: described('The first version, created pending; default "1"', id),
      version_description: described('Description of the first version', { type: 'string', maxLength: 10000 }),
      version_metadata: described('Metadata of the first version', obj),
      features: described("The first version's feature freeze: what services must provide to use it", ref('FeatureDefinitions')),
      version_artifacts: described('Artifacts of the first version', ref('ModelArtifacts')),
      version_source: described('Where the first version came from (free text)', versionSource),
      tags: described("The model's tags", ref('Tags')),
      version_tags: described("The first version's tags", ref('Tags')),
    },
  },
  UpdateModelRequest: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      name: described('Display name', { type: 'string', minLength: 1, maxLength: 200 }),
      description: described('What the model does', { type: 'string', maxLength: 10000 }),
      metadata: described('Free-form metadata', obj),
      handlers: ref('Handlers'),
      handler_contracts: ref('HandlerContracts'),
    },
  },
  ModelVersion: {
    type: 'object',
    description: 'A version of a model with its frozen feature contract',
    required: [
      'model_id',
      'version',
      'description',
      'metadata',
      'status',
      'features',
      'artifacts',
      'source',
      'source_job_id',
      'tags',
      'created_at',
      'updated_at',
    ],
    properties: {
      model_id: described('The model', id),
      version: described('Version string within the model', id),
      description: described('What changed', { type: 'string' }),
      metadata: described('Free-form metadata', obj),
      status: described(
        'Only `active` versions can be newly assigned or run anywhere; `deprecated` ones run where already assigned; `archived` ones run nowhere',
        { enum: ['pending', 'training', 'active', 'failed', 'deprecated', 'archived'] },
      ),
      features: described('The feature freeze; it never changes', ref('FeatureDefinitions')),
      artifacts: ref('ModelArtifacts'),
      source: described('Where the version came from (free text), or null', { type: ['string', 'null'] }),
      source_job_id: described(
        'Lineage: the training job whose success made this version active (its input and output are on the job), or null',
        { type: ['string', 'null'] },
      ),
      tags: ref('Tags'),
      ...ts,
      ...statusAuditFields,
      compatibility: described('On create: its freeze against every active assignment of the model', ref('CompatibilityReport')),
      preview: ref('ChangePreview'),
    },
  },
  Model: {
    type: 'object',
    description: 'A registered model',
    required: ['id', 'name', 'description', 'handlers', 'handler_contracts', 'metadata', 'tags', 'status', 'created_at', 'updated_at'],
    properties: {
      id: described('Model registry identifier', id),
      name: described('Display name', { type: 'string' }),
      description: described('What the model does', { type: 'string' }),
      handlers: ref('Handlers'),
      handler_contracts: ref('HandlerContracts'),
      metadata: described('Free-form metadata', obj),
      tags: ref('Tags'),
      status: described('`active` while any version is active', { enum: ['pending', 'active'] }),
      ...ts,
    },
  },
  ModelEnvelope: {
    type: 'object',
    required: ['model', 'version'],
    properties: {
      model: ref('Model'),
      version: described('The newest version', { oneOf: [ref('ModelVersion'), { type: 'null' }] }),
      stale_subscriptions: {
        type: 'array',
        items: { type: 'string', format: 'uuid' },
        description: 'On update: the subscriptions this change made stale',
      },
      compatibility: described('On an update of handler_contracts: what the new contracts break', ref('CompatibilityReport')),
      preview: ref('ChangePreview'),
      http_handler_secret: described(
        "The secret (whsec_...) the model's `http` handlers verify the service's calls with: shown once, in the answer that created it (the first `http` handler)",
        { type: 'string' },
      ),
    },
  },
  CreateVersionRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['version', 'features'],
    properties: {
      version: described('Version string, unique within the model', id),
      description: described('What changed', { type: 'string', maxLength: 10000 }),
      metadata: described('Free-form metadata', obj),
      features: described('The feature freeze; it never changes', ref('FeatureDefinitions')),
      artifacts: ref('ModelArtifacts'),
      source: described('Where the version came from (free text)', versionSource),
      tags: described("The version's tags", ref('Tags')),
    },
  },
  VersionStatusRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: {
      status: described('The new status (start training with POST .../train instead of `training`)', {
        enum: ['pending', 'training', 'active', 'failed', 'deprecated', 'archived'],
      }),
    },
  },
};
