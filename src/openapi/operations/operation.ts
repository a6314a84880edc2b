import type { Permission } from '../../auth/permissions';

/**
 * How a route is checked for tenant access:
 * - tenant: the {client_id} path segment must be reachable by the caller.
 * - global: reads of the model registry; platform machine clients and users only.
 * - platform: what every tenant shares or what spans every tenant (the registry's writes and the jobs of no tenant,
 *   tenants and their limits, platform-wide webhooks); platform machine clients and users in group `admin` only:
 *   scope `admin` on a token bound to tenants grants no reach beyond them.
 * - job: a global path whose job belongs to a tenant; checked against the job (404 when hidden).
 * - clients: the tenant list, narrowed to what the caller may see.
 * - public: no token.
 */
export type Tenancy = 'tenant' | 'global' | 'platform' | 'job' | 'clients' | 'public';

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
