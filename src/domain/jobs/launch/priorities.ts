import type { JobTrigger } from '../../../db/jobs.repository';

/**
 * Temporal's priority key of a job's workflow and activities when the request names none: 1 runs first, 5 last,
 * and Temporal dispatches every backlogged task of a higher priority before any of a lower one (fairness then
 * balances tenants within one priority). What a person waits for goes ahead of what a batch re-runs. Cascade jobs
 * are written by the outcome step without one and take the column's default, 3 (migrations/20261230000000_tenant_limits.ts).
 */
export const DEFAULT_PRIORITY: Record<JobTrigger, number> = {
  service_init: 2,
  service_update: 2,
  direct: 3,
  assignment: 3,
  cascade: 3,
  rerun: 4,
  // A schedule's fires are batch work: behind interactive inits, beside other runs.
  schedule: 3,
  // A shadow only measures a candidate: it waits behind the work whose answer someone needs.
  shadow: 5,
};
