/** Prose of the OpenAPI document: the introduction and the tags. */

export const API_DESCRIPTION = `Multi-tenant model registry, assignments, services and durable jobs on Temporal.

**Try it**: press *Authorize*, paste a bearer token (with \`npm start\`, the printed admin token, or one from
\`npm run --silent token\`), then fill in any operation and press *Execute* (each is open for input already).

The journey: create a tenant (\`PUT /v2/clients/{client_id}\`), a model (\`POST /v2/models\`) and activate its version,
a domain with feature definitions, bind the model as the domain default assignment, initialize a service (an
inference job starts), read the job at \`GET /v2/jobs/{job_id}\`, report its completion, and watch the cascade a
subscription starts. Every payload here has an example recorded from the running service.

## Authentication
\`Authorization: Bearer <JWT>\` on every route except \`GET /v2/health\`, \`GET /v2/openapi.json\` and \`/docs\`.
A missing or refused token is a **401** with \`WWW-Authenticate\`; a token without the permission or the tenant
access is a **403** naming what is missing.

## Answers on every route
| status | when |
|---|---|
| 400 | malformed JSON, a body that is not \`application/json\`, a field breaking its schema (the message names the field and the rule), a bad path identifier or query value |
| 404 | unknown route, or a resource that does not exist |
| 405 | a known path with another method; the \`Allow\` header lists the methods |
| 413 | a request body over 1 MB |
| 503 | the database or Temporal is unreachable |

Every response carries \`X-Request-Id\` (the caller's, when sane). Errors are \`{"success": false, "message": "..."}\`.

## Pagination
Every list answers \`{items, next_cursor}\`; pass \`next_cursor\` back as \`cursor\` until it is \`null\`. \`limit\` is
1-200 (default 50). Order: newest first, except effective assignments (by key).

## Idempotency
The job-starting POSTs (service init, train, infer, assignment runs) take an \`Idempotency-Key\` header: a repeat
from the same caller returns the first job and changes nothing.

## CORS
Off by default. With \`CORS_ALLOWED_ORIGINS\` set, the listed origins may call the API from a browser: preflights
(\`OPTIONS\`) are answered with 204 and the \`Access-Control-Allow-*\` headers.`;

export const TAGS = [
  { name: 'Health', description: 'Health, liveness and readiness of the API and its dependencies, and its Prometheus metrics' },
  { name: 'Tenants', description: "Registry clients (tenants); onboarding is an administrator's act" },
  { name: 'Domains', description: 'Domains of a tenant and their feature definitions' },
  { name: 'Assignments', description: 'Keyed, revisioned bindings of model versions to a domain or a service' },
  { name: 'Services', description: 'Services of a domain: init validates features and starts inference' },
  { name: 'Models', description: 'The global model registry: models, handlers, versions with frozen feature contracts' },
  { name: 'Jobs', description: 'Training and inference jobs, each a Temporal workflow; completion reports' },
  { name: 'Subscriptions', description: 'Event subscriptions: a completion of one model starts another (cascade)' },
  {
    name: 'Schedules',
    description:
      'Recurring jobs on Temporal Schedules: training, direct inference or service re-scoring on a calendar, with pause, trigger-now, backfill and overlap policies',
  },
  {
    name: 'Webhooks',
    description:
      'Signed notifications of job, service, assignment and registry events to your endpoints (Standard Webhooks), with a delivery log',
  },
];

/** The tag of a path: its most specific resource. */
export function tagOf(path: string): string {
  if (path === '/v2/health' || path.startsWith('/v2/health/') || path === '/metrics') return 'Health';
  if (path.includes('/webhooks')) return 'Webhooks';
  if (path.includes('schedules')) return 'Schedules';
  if (path.includes('/event-subscriptions')) return 'Subscriptions';
  if (/\/jobs|\/train$|\/infer$/.test(path)) return 'Jobs';
  if (/assign/.test(path)) return 'Assignments';
  if (path.includes('/service')) return 'Services';
  if (path.includes('/domains')) return 'Domains';
  if (path.startsWith('/v2/clients')) return 'Tenants';
  return 'Models';
}
