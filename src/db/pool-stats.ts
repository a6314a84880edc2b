import type { Knex } from 'knex';
import type { PoolStats } from '../observability/metrics';

/** knex's pool (tarn) as numbers; undefined before the pool exists or after it is destroyed. */
export function poolStats(knex: Knex): () => PoolStats | undefined {
  return () => {
    // knex exposes no typed accessor; tarn's counters are its documented API.
    const pool = (knex.client as { pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number; max: number } }).pool;
    if (!pool) return undefined;
    return { used: pool.numUsed(), idle: pool.numFree(), waiting: pool.numPendingAcquires(), max: pool.max };
  };
}
