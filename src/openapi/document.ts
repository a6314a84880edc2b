import { OPERATIONS, Operation } from './operations';
import { schemas, pathParameterSchema, dispatchCalls } from './schemas';
import { API_DESCRIPTION, TAGS, tagOf } from './descriptions';
import { assignmentBlocked, completionBadRequest, errorResponses, headers, parameters } from './shared-components';
import examples from './examples.json';

type Examples = Record<string, { request?: unknown; responses?: Record<string, unknown> }>;
const EXAMPLES = examples as Examples;

const json = (schema: object, example: unknown) => ({ 'application/json': { schema, ...(example === undefined ? {} : { example }) } });
const requestIdHeader = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

function successSchema(op: Operation): object {
  const item = ref('schemas', op.response);
  if (!op.paginated) return item;
  return {
    type: 'object',
    required: ['items', 'next_cursor'],
    properties: {
      items: { type: 'array', items: item },
      next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page' },
    },
  };
}

/** Success statuses of an operation, with what each means. */
function successes(op: Operation): [number, string][] {
  if (op.id === 'upsertClient')
    return [
      [201, 'Created'],
      [200, 'Updated'],
    ];
  if (op.id === 'completeJob')
    return [
      [200, 'Recorded; every triggered subscription started its job'],
      [207, 'Recorded; one or more cascade entries failed (see triggered_events[*].error)'],
    ];
  return [
    [
      op.status,
      op.status === 201
        ? 'Created'
        : op.status === 202
          ? op.path.includes('/webhooks')
            ? 'Accepted: the delivery is queued'
            : op.path.includes('schedules')
              ? 'Accepted: Temporal takes the fires; their runs appear in recent_runs'
              : 'Accepted: the job is starting'
          : 'OK',
    ],
  ];
}

/** The one text body (`/metrics`, Prometheus exposition format): its first series as the service writes them. */
const TEXT_EXAMPLE = [
  '# HELP process_cpu_user_seconds_total Total user CPU time spent in seconds.',
  '# TYPE process_cpu_user_seconds_total counter',
  'process_cpu_user_seconds_total 1.52',
  '',
].join('\n');

/** The probes' 503 bodies, in the form the service answers them (src/domain/health/health.service.ts). */
const UNHEALTHY: Record<string, unknown> = {
  getHealth: { status: 'degraded', database: 'unavailable: connect ECONNREFUSED 127.0.0.1:5432', temporal: 'ok', job_starts: 'ok' },
  getReadiness: { status: 'not_ready', serving: 'draining' },
};

/** Operations that upsert the domain default assignment, so a 422 may be an AssignBlockedErrorResponse. */
const MAY_BLOCK = new Set(['upsertDomainAssignment', 'createDomainAssignment', 'assignDomainModel', 'promoteAssignment']);

function responses(op: Operation) {
  const out: Record<string, object> = {};
  for (const [status, description] of successes(op)) {
    const content = op.contentType
      ? { [op.contentType]: { schema: { type: 'string' }, example: TEXT_EXAMPLE } }
      : json(successSchema(op), EXAMPLES[op.id]?.responses?.[status]);
    out[status] = { description, headers: requestIdHeader, content };
  }
  if (op.permission === 'public') {
    out[400] = ref('responses', 'BadRequest');
    if (op.errors?.includes(503) || op.id === 'getHealth') {
      const why =
        op.id === 'getReadiness'
          ? 'Not ready: draining, or a dependency is not in order'
          : 'The database or Temporal does not answer, or jobs cannot start';
      out[503] = { description: why, headers: requestIdHeader, content: json(ref('schemas', op.response), UNHEALTHY[op.id]) };
    }
    return out;
  }
  // 429: every authenticated route counts a tenant caller's requests; job-starting routes also the tenant's job starts.
  const codes = [400, 401, 403, 404, ...(op.body ? [413] : []), ...(op.errors ?? []).filter((c) => c !== 207), 429, 503];
  for (const code of [...new Set(codes)].sort((a, b) => a - b)) {
    out[code] = ref('responses', code === 422 && MAY_BLOCK.has(op.id) ? 'AssignmentBlocked' : errorResponses[code].name);
  }
  if (op.id === 'completeJob') out[400] = completionBadRequest;
  return out;
}

function operationDescription(op: Operation): string {
  const permission =
    op.permission === 'admin'
      ? 'administrators only (scope or group `admin`)'
      : `permission \`${op.permission}\` (scope \`platform/${op.permission}\`, or \`admin\`)`;
  const tenancy: Record<string, string> = {
    tenant: 'the caller must reach the `{client_id}` of the path',
    global: 'a read of the shared model registry: platform clients and users only; tenant clients get 403',
    platform:
      'it changes what every tenant shares (the model registry, jobs of no tenant, tenants and their limits) or spans every tenant, so it needs platform reach: a platform client, or a user in group `admin`; a token bound to tenants gets 403 even with scope `admin`',
    job: "checked against the job's tenant; a job the caller may not see is a 404",
    clients: 'the answer holds only what belongs to the tenants the caller may see',
    public: '',
  };
  const lines = [`Requires ${permission}; ${tenancy[op.tenancy]}.`];
  if (op.paginated) lines.push('A page of `{items, next_cursor}`; see Pagination in the introduction.');
  if (op.idempotent) lines.push('Send `Idempotency-Key` to make retries safe.');
  return lines.join('\n\n');
}

function pathItem(op: Operation) {
  const pathParams = [...op.path.matchAll(/\{([a-z_]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description: `${name.replace(/_/g, ' ')}`,
    schema: pathParameterSchema(name),
  }));
  const query: object[] = Object.entries(op.query ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    description: (schema as { description?: string }).description ?? `Only items with this ${name}`,
    schema,
  }));
  if (op.paginated) query.push(ref('parameters', 'Limit'), ref('parameters', 'Cursor'));
  if (op.idempotent) query.push(ref('parameters', 'IdempotencyKey'));
  const example = EXAMPLES[op.id]?.request;
  return {
    operationId: op.id,
    summary: op.summary,
    ...(op.permission === 'public' ? { description: 'Public: no token.', security: [] } : { description: operationDescription(op) }),
    tags: [tagOf(op.path)],
    'x-permission': op.permission,
    'x-tenancy': op.tenancy,
    // A handler may report with the job token its dispatch carried instead of an identity-provider token.
    ...(op.id === 'completeJob' ? { security: [{ bearerAuth: [] }, { jobToken: [] }] } : {}),
    parameters: [...pathParams, ...query],
    ...(op.body ? { requestBody: { required: true, content: json(ref('schemas', op.body), example) } } : {}),
    responses: responses(op),
  };
}

/** The OpenAPI 3.1 document, built from the operation table, the component schemas and the recorded examples. */
export function buildOpenApiDocument() {
  const paths: Record<string, Record<string, object>> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method.toLowerCase()] = pathItem(op);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Model Orchestration Service API',
      version: '2.0.0',
      description: API_DESCRIPTION,
      // package.json says UNLICENSED: no licence is granted. SPDX's form for that is a LicenseRef.
      license: { name: 'Proprietary, all rights reserved', identifier: 'LicenseRef-Proprietary' },
    },
    // Relative: the API is wherever this document was fetched from, so /docs tries calls on its own host.
    servers: [{ url: '/', description: 'The server that serves this document' }],
    security: [{ bearerAuth: [] }],
    tags: TAGS,
    paths,
    // What the service sends to handlers: the Lambda event, the ECS task's environment, the `http` handler's POST.
    webhooks: dispatchCalls,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An access token from the identity provider; with `npm start`, the printed dev token or `npm run token`.',
        },
        jobToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'The job token a dispatch carries (`completion.token`): accepted by the completion route of that job alone, until its deadline (docs/authorization.md, "Job tokens").',
        },
      },
      schemas,
      parameters,
      headers,
      responses: {
        ...Object.fromEntries(Object.values(errorResponses).map((r) => [r.name, r.response])),
        AssignmentBlocked: assignmentBlocked,
      },
    },
  };
}
