import type { Knex } from 'knex';
import type { JobGateway } from '../ports';
import { pendingMigrations } from '../../db/migration-status';

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), ms).unref())]);
}

async function probe(fn: () => Promise<unknown>): Promise<string> {
  try {
    await withTimeout(fn(), 3000);
    return 'ok';
  } catch (err) {
    return `unavailable: ${(err as Error).message}`;
  }
}

/** The checks behind the health and readiness routes, each bounded to 3 s. */
export function createHealthService(deps: { knex: Knex; gateway: JobGateway; temporalFairness?: () => string }) {
  return {
    /** Postgres, Temporal, and whether jobs could start (the namespace defines the job search attributes). */
    async dependencies() {
      const [database, temporal] = await Promise.all([probe(() => deps.knex.raw('select 1')), probe(() => deps.gateway.ping())]);
      // Temporal may answer while jobs still cannot start (e.g. the namespace lacks the job search attributes).
      const jobStarts = temporal === 'ok' ? await deps.gateway.readiness() : { ok: false as const, reason: 'Temporal is unavailable' };
      const job_starts = jobStarts.ok ? 'ok' : `unavailable: ${jobStarts.reason}`;
      return { database, temporal, job_starts, ok: database === 'ok' && temporal === 'ok' && jobStarts.ok };
    },

    /** Whether Temporal dispatches tenants' tasks fairly, as the API's probe saw it (docs/fairness.md); informational. */
    temporalFairness(): string | undefined {
      return deps.temporalFairness?.();
    },

    async migrations(): Promise<string> {
      try {
        const pending = await withTimeout(pendingMigrations(deps.knex), 3000);
        return pending.length ? `pending: ${pending.join(', ')}` : 'ok';
      } catch (err) {
        return `unavailable: ${(err as Error).message}`;
      }
    },
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
