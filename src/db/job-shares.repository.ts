import type { Db } from './types';

/** Started, unfinished jobs (held ones aside): the tenant's, everyone's, and the weights of the other busy tenants. */
export interface ActiveJobCounts {
  mine: number;
  total: number;
  /** The fairness weights of the other tenants with active jobs, summed (1 for a tenant with no override). */
  otherWeights: number;
  /** The other tenants with active jobs. */
  otherTenants: number;
}

/** One statement over the active jobs' partial index (model_jobs_tenant_active), grouped by tenant. */
export async function activeJobCounts(db: Db, clientId: string): Promise<ActiveJobCounts> {
  const { rows } = await db.raw<{ rows: { mine: string; total: string; other_weights: string; other_tenants: string }[] }>(
    `WITH active AS (
       SELECT client_id, count(*) AS n FROM model_jobs
        WHERE status IN ('pending', 'running') AND queued_reason IS NULL
        GROUP BY client_id)
     SELECT coalesce(sum(a.n), 0) AS total,
            coalesce(sum(a.n) FILTER (WHERE a.client_id = ?), 0) AS mine,
            coalesce(sum(coalesce((c.limits->>'fairness_weight')::float8, 1)) FILTER (WHERE a.client_id <> ?), 0) AS other_weights,
            count(*) FILTER (WHERE a.client_id <> ?) AS other_tenants
       FROM active a LEFT JOIN clients c ON c.client_id = a.client_id`,
    [clientId, clientId, clientId],
  );
  const row = rows[0];
  return {
    mine: Number(row.mine),
    total: Number(row.total),
    otherWeights: Number(row.other_weights),
    otherTenants: Number(row.other_tenants),
  };
}
