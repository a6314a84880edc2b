import type { Operation } from './operation';

/** Health, liveness, readiness and metrics: public. */
export const HEALTH_OPERATIONS: Operation[] = [
  {
    id: 'getHealth',
    method: 'GET',
    path: '/v2/health',
    permission: 'public',
    tenancy: 'public',
    summary: 'Health of the API, its database and Temporal',
    response: 'Health',
    status: 200,
    errors: [503],
  },
  {
    id: 'getLiveness',
    method: 'GET',
    path: '/v2/health/live',
    permission: 'public',
    tenancy: 'public',
    summary: 'Liveness: the process answers (also while draining)',
    response: 'Liveness',
    status: 200,
  },
  {
    id: 'getReadiness',
    method: 'GET',
    path: '/v2/health/ready',
    permission: 'public',
    tenancy: 'public',
    summary: 'Readiness: Postgres, Temporal, search attributes and migrations are in order and the API is not draining',
    response: 'Readiness',
    status: 200,
    errors: [503],
  },
  // Public like the health routes: bounded labels, no ids or tenant data (docs/observability.md).
  {
    id: 'getMetrics',
    method: 'GET',
    path: '/metrics',
    permission: 'public',
    tenancy: 'public',
    summary: 'Prometheus metrics of this API process (text exposition format)',
    response: 'Metrics',
    status: 200,
    contentType: 'text/plain',
  },
];
