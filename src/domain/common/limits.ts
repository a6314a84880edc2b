import type { LimitsOverride, TenantLimits } from '../../shapes';
import type { LimitDefaults } from '../../config';

export type { LimitsOverride, TenantLimits, LimitDefaults };

/** Bounds of an override; the OpenAPI document states the same (src/openapi/schemas/tenants.ts). */
export const LIMIT_BOUNDS = {
  jobs_per_second: { minimum: 0.01, maximum: 10_000 },
  burst: { minimum: 1, maximum: 100_000 },
  max_running_jobs: { minimum: 1, maximum: 1_000_000 },
  fairness_weight: { minimum: 0.01, maximum: 100 },
} as const;

export function effectiveLimits(defaults: LimitDefaults, override: LimitsOverride | null | undefined): TenantLimits {
  return {
    jobs_per_second: override?.jobs_per_second ?? defaults.jobsPerSecond,
    burst: override?.burst ?? defaults.jobsBurst,
    max_running_jobs: override?.max_running_jobs ?? (defaults.maxRunningJobs > 0 ? defaults.maxRunningJobs : null),
    fairness_weight: override?.fairness_weight ?? 1,
  };
}

/**
 * The bounded label value metrics give a tenant (docs/fairness.md, "Metrics"): `none` for jobs of no tenant,
 * `default` or `custom` (an override is set); the client id itself only where per-tenant series are opted in.
 */
export function tenantClass(clientId: string | null, override: LimitsOverride | null | undefined, perTenant = false): string {
  if (clientId === null) return 'none';
  if (perTenant) return clientId;
  return override ? 'custom' : 'default';
}
