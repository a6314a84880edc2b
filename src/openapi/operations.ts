import type { Permission } from '../auth/permissions';

/**
 * How a route is checked for tenant access:
 * - tenant: the {client_id} path segment must be reachable by the caller.
 * - global: the model registry; platform machine clients and users only.
 * - job: a global path whose job belongs to a tenant; checked against the job (404 when hidden).
 * - clients: the tenant list, narrowed to what the caller may see.
 * - public: no token.
 */
export type Tenancy = 'tenant' | 'global' | 'job' | 'clients' | 'public';

export interface Operation {
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** OpenAPI form, with {param} segments. */
  path: string;
  /** `admin`: only administrators (scope admin or group admin). */
  permission: Permission | 'admin' | 'public';
  tenancy: Tenancy;
  summary: string;
  body?: string;
  response: string;
  status: number;
  /** Responses besides the success one. */
  errors?: number[];
  query?: Record<string, object>;
  paginated?: boolean;
  /** Takes an Idempotency-Key header: a repeat returns the first job. */
  idempotent?: boolean;
  /** Media type of the success body when it is not JSON (the Prometheus text format). */
  contentType?: 'text/plain';
}

const C = '/v2/clients/{client_id}';
const D = `${C}/domains/{domain_id}`;
const S = `${D}/service/{service_id}`;
const M = '/v2/models/{model_id}';
const V = `${M}/versions/{model_version}`;
const W = `${C}/webhooks`;
const PW = '/v2/webhooks';

const statusFilter = (values: string[]) => ({ status: { type: 'string', enum: values } });

/** The ten webhook routes under `base`; `kind` names the platform-wide set ("createPlatformWebhook"). */
function webhookOperations(base: string, tenancy: Tenancy, perm: { read: Operation['permission']; write: Operation['permission'] }, kind: string): Operation[] {
  const one = `${base}/{webhook_id}`;
  const whose = kind ? 'a platform-wide' : "a tenant's";
  return [
    { id: `create${kind}Webhook`, method: 'POST', path: base, permission: perm.write, tenancy, summary: `Create ${whose} webhook endpoint; the answer holds its signing secret, once`, body: 'CreateWebhookRequest', response: 'WebhookWithSecret', status: 201, errors: [422] },
    { id: `list${kind}Webhooks`, method: 'GET', path: base, permission: perm.read, tenancy, summary: `List ${kind ? 'the platform-wide' : "a tenant's"} webhook endpoints`, response: 'Webhook', status: 200, paginated: true, query: statusFilter(['active', 'disabled', 'failing']) },
    { id: `get${kind}Webhook`, method: 'GET', path: one, permission: perm.read, tenancy, summary: 'Read a webhook endpoint (never its secret)', response: 'Webhook', status: 200 },
    { id: `update${kind}Webhook`, method: 'PUT', path: one, permission: perm.write, tenancy, summary: 'Change a webhook endpoint, or disable or re-activate it', body: 'UpdateWebhookRequest', response: 'Webhook', status: 200, errors: [422] },
    { id: `delete${kind}Webhook`, method: 'DELETE', path: one, permission: perm.write, tenancy, summary: 'Delete a webhook endpoint and its delivery log', response: 'Webhook', status: 200 },
    { id: `rotate${kind}WebhookSecret`, method: 'POST', path: `${one}/rotate-secret`, permission: perm.write, tenancy, summary: 'Replace the signing secret; the old one keeps signing beside it for a grace period', response: 'WebhookSecret', status: 200 },
    { id: `ping${kind}Webhook`, method: 'POST', path: `${one}/ping`, permission: perm.write, tenancy, summary: 'Send a webhook.test event to this endpoint', response: 'WebhookDelivery', status: 202, errors: [422] },
    { id: `list${kind}WebhookDeliveries`, method: 'GET', path: `${one}/deliveries`, permission: perm.read, tenancy, summary: 'The delivery log of an endpoint, newest first: attempts, status codes, latency, next retry', response: 'WebhookDelivery', status: 200, paginated: true, query: statusFilter(['pending', 'succeeded', 'failed']) },
    { id: `get${kind}WebhookDelivery`, method: 'GET', path: `${one}/deliveries/{delivery_id}`, permission: perm.read, tenancy, summary: 'One delivery with its attempts', response: 'WebhookDelivery', status: 200 },
    { id: `redeliver${kind}WebhookDelivery`, method: 'POST', path: `${one}/deliveries/{delivery_id}/redeliver`, permission: perm.write, tenancy, summary: 'Send a succeeded or failed delivery again (same event id)', response: 'WebhookDelivery', status: 202, errors: [409] },
  ];
}

/** Every route of the API: the one table that names its permission, tenancy and schemas. */
export const OPERATIONS: Operation[] = [
  { id: 'getHealth', method: 'GET', path: '/v2/health', permission: 'public', tenancy: 'public', summary: 'Health of the API, its database and Temporal', response: 'Health', status: 200, errors: [503] },
  { id: 'getLiveness', method: 'GET', path: '/v2/health/live', permission: 'public', tenancy: 'public', summary: 'Liveness: the process answers (also while draining)', response: 'Liveness', status: 200 },
  { id: 'getReadiness', method: 'GET', path: '/v2/health/ready', permission: 'public', tenancy: 'public', summary: 'Readiness: Postgres, Temporal, search attributes and migrations are in order and the API is not draining', response: 'Readiness', status: 200, errors: [503] },
  // Public like the health routes: bounded labels, no ids or tenant data (docs/observability.md).
  { id: 'getMetrics', method: 'GET', path: '/metrics', permission: 'public', tenancy: 'public', summary: 'Prometheus metrics of this API process (text exposition format)', response: 'Metrics', status: 200, contentType: 'text/plain' },

  { id: 'listClients', method: 'GET', path: '/v2/clients', permission: 'client_read', tenancy: 'clients', summary: 'List the tenants the caller may see', response: 'Client', status: 200, paginated: true, query: statusFilter(['active', 'suspended']) },
  { id: 'upsertClient', method: 'PUT', path: C, permission: 'admin', tenancy: 'tenant', summary: 'Create or update a tenant (201 created, 200 updated)', body: 'UpsertClientRequest', response: 'Client', status: 200 },
  { id: 'getClient', method: 'GET', path: C, permission: 'client_read', tenancy: 'tenant', summary: 'Read a tenant', response: 'Client', status: 200 },
  { id: 'setClientStatus', method: 'PUT', path: `${C}/new_status`, permission: 'admin', tenancy: 'tenant', summary: 'Activate or suspend a tenant', body: 'ClientStatusRequest', response: 'Client', status: 200 },
  { id: 'listClientJobs', method: 'GET', path: `${C}/jobs`, permission: 'client_read', tenancy: 'tenant', summary: "List a tenant's jobs, newest first", response: 'ModelJob', status: 200, paginated: true,
    query: { status: { type: 'string', enum: ['pending', 'running', 'success', 'failure', 'timed_out'] }, job_type: { type: 'string', enum: ['inference', 'training'] }, model_id: { type: 'string' }, service_id: { type: 'string' } } },

  { id: 'createDomain', method: 'POST', path: `${C}/domains`, permission: 'manage_domains', tenancy: 'tenant', summary: 'Create a domain (starts not_ready)', body: 'CreateDomainRequest', response: 'Domain', status: 201, errors: [409, 422] },
  { id: 'listDomains', method: 'GET', path: `${C}/domains`, permission: 'client_read', tenancy: 'tenant', summary: "List a tenant's domains", response: 'Domain', status: 200, paginated: true, query: statusFilter(['not_ready', 'active']) },
  { id: 'getDomain', method: 'GET', path: D, permission: 'client_read', tenancy: 'tenant', summary: 'Read a domain', response: 'Domain', status: 200 },
  { id: 'setDomainStatus', method: 'PUT', path: `${D}/new_status`, permission: 'manage_domains', tenancy: 'tenant', summary: 'Set a domain not_ready or active', body: 'DomainStatusRequest', response: 'Domain', status: 200 },
  { id: 'assignDomainModel', method: 'POST', path: `${D}/model/assign`, permission: 'manage_domains', tenancy: 'tenant', summary: "Point the domain default assignment at a model's newest active version", body: 'AssignModelRequest', response: 'Domain', status: 200, errors: [422] },
  { id: 'getFeatures', method: 'GET', path: `${D}/features`, permission: 'client_read', tenancy: 'tenant', summary: "A domain's feature definitions", response: 'FeatureDefinitions', status: 200 },
  { id: 'replaceFeatures', method: 'PUT', path: `${D}/features`, permission: 'manage_domains', tenancy: 'tenant', summary: "Replace a domain's feature definitions (persist-only)", body: 'ReplaceFeaturesRequest', response: 'FeaturesResponse', status: 200, errors: [422] },

  { id: 'createDomainAssignment', method: 'POST', path: `${D}/assignments`, permission: 'manage_domains', tenancy: 'tenant', summary: 'Upsert a domain assignment, key in the body', body: 'CreateAssignmentRequest', response: 'Assignment', status: 201, errors: [422] },
  { id: 'listDomainAssignments', method: 'GET', path: `${D}/assignments`, permission: 'client_read', tenancy: 'tenant', summary: 'Domain assignments (active by default; status=archived|all for history)', response: 'Assignment', status: 200, paginated: true, query: statusFilter(['active', 'archived', 'all']) },
  { id: 'upsertDomainAssignment', method: 'PUT', path: `${D}/assignments/{assignment_key}`, permission: 'manage_domains', tenancy: 'tenant', summary: 'Upsert a domain assignment by key', body: 'AssignmentBody', response: 'Assignment', status: 201, errors: [422] },
  { id: 'getDomainAssignment', method: 'GET', path: `${D}/assignments/{assignment_key}`, permission: 'client_read', tenancy: 'tenant', summary: 'The active domain assignment under a key', response: 'Assignment', status: 200 },
  { id: 'runDomainAssignment', method: 'POST', path: `${D}/assignments/{assignment_key}/run`, permission: 'run_inference', tenancy: 'tenant', summary: "Run inference with a domain assignment's model version", body: 'JobStartRequest', response: 'JobAccepted', status: 202, errors: [422], idempotent: true },

  { id: 'initService', method: 'POST', path: `${D}/service/init`, permission: 'service_init', tenancy: 'tenant', summary: 'Initialize a service and start its inference', body: 'InitServiceRequest', response: 'JobAccepted', status: 202, errors: [409, 422], idempotent: true },
  { id: 'listServices', method: 'GET', path: `${D}/services`, permission: 'client_read', tenancy: 'tenant', summary: "A domain's services", response: 'Service', status: 200, paginated: true,
    query: { ...statusFilter(['in_progress', 'available', 'failed', 'not_found']), departed: { type: 'string', enum: ['true', 'false'] } } },
  { id: 'getService', method: 'GET', path: S, permission: 'client_read', tenancy: 'tenant', summary: 'Read a service', response: 'Service', status: 200 },
  { id: 'updateService', method: 'PUT', path: S, permission: 'manage_services', tenancy: 'tenant', summary: 'Update a service; re-runs inference when resolved features change', body: 'UpdateServiceRequest', response: 'Service', status: 200, errors: [422] },
  { id: 'setServiceStatus', method: 'PUT', path: `${S}/new_status`, permission: 'manage_services', tenancy: 'tenant', summary: "Set a service's status", body: 'ServiceStatusRequest', response: 'Service', status: 200, errors: [409] },
  { id: 'getEffectiveAssignments', method: 'GET', path: `${S}/effective-assignments`, permission: 'client_read', tenancy: 'tenant', summary: 'The assignment in force for each key: the service override, else the domain one (by key)', response: 'Assignment', status: 200, paginated: true },
  { id: 'createServiceAssignment', method: 'POST', path: `${S}/assignments`, permission: 'manage_services', tenancy: 'tenant', summary: 'Upsert a service assignment, key in the body', body: 'CreateAssignmentRequest', response: 'Assignment', status: 201, errors: [422] },
  { id: 'listServiceAssignments', method: 'GET', path: `${S}/assignments`, permission: 'client_read', tenancy: 'tenant', summary: 'Service assignments (active by default; status=archived|all for history)', response: 'Assignment', status: 200, paginated: true, query: statusFilter(['active', 'archived', 'all']) },
  { id: 'upsertServiceAssignment', method: 'PUT', path: `${S}/assignments/{assignment_key}`, permission: 'manage_services', tenancy: 'tenant', summary: 'Upsert a service assignment by key', body: 'AssignmentBody', response: 'Assignment', status: 201, errors: [422] },
  { id: 'getServiceAssignment', method: 'GET', path: `${S}/assignments/{assignment_key}`, permission: 'client_read', tenancy: 'tenant', summary: 'The active service assignment under a key', response: 'Assignment', status: 200 },
  { id: 'runServiceAssignment', method: 'POST', path: `${S}/assignments/{assignment_key}/run`, permission: 'run_inference', tenancy: 'tenant', summary: "Run inference with the service's effective assignment under a key", body: 'JobStartRequest', response: 'JobAccepted', status: 202, errors: [422], idempotent: true },

  { id: 'createModel', method: 'POST', path: '/v2/models', permission: 'write_models', tenancy: 'global', summary: 'Register a model with its first version', body: 'CreateModelRequest', response: 'ModelEnvelope', status: 201, errors: [409, 422] },
  { id: 'listModels', method: 'GET', path: '/v2/models', permission: 'read_models', tenancy: 'global', summary: 'List models', response: 'Model', status: 200, paginated: true, query: { ...statusFilter(['pending', 'active']), name: { type: 'string' } } },
  { id: 'getModel', method: 'GET', path: M, permission: 'read_models', tenancy: 'global', summary: 'A model with its newest version', response: 'ModelEnvelope', status: 200 },
  { id: 'updateModel', method: 'PUT', path: M, permission: 'write_models', tenancy: 'global', summary: "Change a model's description, metadata, handlers or contracts", body: 'UpdateModelRequest', response: 'ModelEnvelope', status: 200, errors: [422] },
  { id: 'createVersion', method: 'POST', path: `${M}/versions`, permission: 'write_models', tenancy: 'global', summary: 'Create a version with its frozen feature contract', body: 'CreateVersionRequest', response: 'ModelVersion', status: 201, errors: [409, 422] },
  { id: 'listVersions', method: 'GET', path: `${M}/versions`, permission: 'read_models', tenancy: 'global', summary: "A model's versions, newest first", response: 'ModelVersion', status: 200, paginated: true, query: statusFilter(['pending', 'training', 'active', 'failed']) },
  { id: 'getVersion', method: 'GET', path: V, permission: 'read_models', tenancy: 'global', summary: 'A model version', response: 'ModelVersion', status: 200 },
  { id: 'setVersionStatus', method: 'PUT', path: `${V}/new_status`, permission: 'write_models', tenancy: 'global', summary: "Set a version's status (see the transition table)", body: 'VersionStatusRequest', response: 'ModelVersion', status: 200, errors: [409] },
  { id: 'startTraining', method: 'POST', path: `${V}/train`, permission: 'train_model', tenancy: 'global', summary: 'Start a training job; the version moves to training', body: 'JobStartRequest', response: 'JobAccepted', status: 202, errors: [409, 422], idempotent: true },
  { id: 'startInference', method: 'POST', path: `${V}/infer`, permission: 'run_inference', tenancy: 'global', summary: 'Start a direct inference job', body: 'JobStartRequest', response: 'JobAccepted', status: 202, errors: [422], idempotent: true },
  { id: 'listVersionJobs', method: 'GET', path: `${V}/jobs`, permission: 'read_models', tenancy: 'global', summary: "A model version's jobs, newest first", response: 'ModelJob', status: 200, paginated: true,
    query: { status: { type: 'string', enum: ['pending', 'running', 'success', 'failure', 'timed_out'] }, job_type: { type: 'string', enum: ['inference', 'training'] } } },
  { id: 'getJob', method: 'GET', path: `${V}/jobs/{model_job_id}`, permission: 'read_models', tenancy: 'job', summary: 'A model job', response: 'ModelJob', status: 200 },
  { id: 'getJobById', method: 'GET', path: '/v2/jobs/{job_id}', permission: 'read_models', tenancy: 'job', summary: 'A job by its id alone', response: 'ModelJob', status: 200 },
  { id: 'completeJob', method: 'POST', path: `${V}/jobs/{model_job_id}/complete`, permission: 'complete_job', tenancy: 'job', summary: 'Report a job complete; 207 when a cascade entry failed', body: 'CompleteJobRequest', response: 'CompletionResponse', status: 200, errors: [207, 409] },

  { id: 'createSubscription', method: 'POST', path: `${M}/event-subscriptions`, permission: 'write_models', tenancy: 'global', summary: 'Subscribe a target action to an event of this model', body: 'CreateSubscriptionRequest', response: 'Subscription', status: 201, errors: [422] },
  { id: 'listSubscriptions', method: 'GET', path: `${M}/event-subscriptions`, permission: 'read_models', tenancy: 'global', summary: "A model's event subscriptions", response: 'Subscription', status: 200, paginated: true, query: statusFilter(['active', 'stale', 'disabled']) },
  { id: 'getSubscription', method: 'GET', path: `${M}/event-subscriptions/{subscription_id}`, permission: 'read_models', tenancy: 'global', summary: 'An event subscription', response: 'Subscription', status: 200 },
  { id: 'setSubscriptionStatus', method: 'PUT', path: `${M}/event-subscriptions/{subscription_id}/new_status`, permission: 'write_models', tenancy: 'global', summary: 'Re-activate (re-validated) or disable a subscription', body: 'SubscriptionStatusRequest', response: 'Subscription', status: 200, errors: [422] },
  { id: 'deleteSubscription', method: 'DELETE', path: `${M}/event-subscriptions/{subscription_id}`, permission: 'write_models', tenancy: 'global', summary: 'Disable a subscription (kept for the jobs it started)', response: 'Subscription', status: 200 },

  // Webhooks: a tenant's endpoints (tenant check), and the platform-wide ones, which see every tenant's events
  // and the registry's, for administrators only.
  ...webhookOperations(W, 'tenant', { read: 'client_read', write: 'manage_webhooks' }, ''),
  ...webhookOperations(PW, 'global', { read: 'admin', write: 'admin' }, 'Platform'),
];

export const OPERATIONS_BY_ID = new Map(OPERATIONS.map((op) => [op.id, op]));

export function operation(id: string): Operation {
  const op = OPERATIONS_BY_ID.get(id);
  if (!op) throw new Error(`unknown operation ${id}`);
  return op;
}

/** `/v2/clients/{client_id}` → `/v2/clients/:client_id` */
export function koaPath(path: string): string {
  return path.replace(/\{([a-z_]+)\}/g, ':$1');
}
