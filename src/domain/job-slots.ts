import * as repo from '../db/jobs.repository';
import { findClient } from '../db/clients.repository';
import type { Db } from '../db/types';
import { inTransaction } from '../db/transaction';
import { effectiveLimits, tenantClass, type LimitDefaults, type TenantLimits } from './limits';
import { fairnessKeyFor } from './ports/job-gateway';
import { FairStarts } from './fair-starts';
import { jobStarter, type StarterDeps } from './job-starter';

/** Starts of released jobs in flight at once (each one Temporal call). */
const RELEASE_CONCURRENCY = 8;

function heldReason(clientId: string, cap: number): string {
  return `tenant ${clientId} is at its max_running_jobs (${cap}); the job starts when one of the tenant's jobs finishes`;
}

/**
 * A tenant's running-job cap (docs/fairness.md, "Concurrency caps"): a job past it is written `pending` with a
 * `queued_reason` and not started; when one of the tenant's jobs finishes, its held jobs start, highest priority
 * first, then oldest. Every decision about one tenant's slots takes the tenant's lock (an advisory lock held to the
 * end of the transaction), so a start and a release never both take the last free slot.
 */
export function createJobSlots(deps: StarterDeps & { defaults: LimitDefaults; perTenantMetrics?: boolean }) {
  const { knex, metrics } = deps;
  const start = jobStarter(deps);
  const starts = new FairStarts(RELEASE_CONCURRENCY);

  async function limitsOf(db: Db, clientId: string): Promise<TenantLimits> {
    return effectiveLimits(deps.defaults, (await findClient(db, clientId))?.limits);
  }

  /** Starts as many of the tenant's held jobs as its cap now leaves room for; answers how many. */
  async function release(clientId: string): Promise<number> {
    // Every finished job of a tenant asks for a release. A tenant without a cap holds no new job (holdReason), so
    // unless some wait from an earlier cap, its release is one read, without a transaction or the tenant's lock.
    if ((await limitsOf(knex, clientId)).max_running_jobs === null && !(await repo.hasHeldJobs(knex, clientId))) return 0;
    const released = await inTransaction(knex, async (trx) => {
      const cap = (await limitsOf(trx, clientId)).max_running_jobs;
      await repo.lockTenantSlots(trx, clientId);
      const free = cap === null ? Number.MAX_SAFE_INTEGER : cap - (await repo.countActiveJobs(trx, clientId));
      return free > 0 ? repo.releaseHeldJobs(trx, clientId, Math.min(free, 1000)) : [];
    });
    for (const job of released) metrics?.jobReleased(job.trigger, tenantClass(clientId, job.tenant_limits, deps.perTenantMetrics));
    await Promise.all(released.map((job) => starts.run(fairnessKeyFor(job.client_id), () => start(job))));
    return released.length;
  }

  return {
    release,

    /** Inside the transaction that writes a job: why it must wait, or null when it may start now. */
    async holdReason(trx: Db, clientId: string | null, limits: TenantLimits): Promise<string | null> {
      const cap = limits.max_running_jobs;
      if (!clientId || cap === null) return null;
      await repo.lockTenantSlots(trx, clientId);
      return (await repo.countActiveJobs(trx, clientId)) >= cap ? heldReason(clientId, cap) : null;
    },

    /**
     * Cascade jobs the outcome step wrote (pending, not held): the ones the tenant's cap leaves room for, to start;
     * the rest are held. A cascade counts against the tenant of its source job, whose finish freed a slot.
     */
    async admitWritten(jobs: repo.JobView[]): Promise<repo.JobView[]> {
      const startable: repo.JobView[] = [];
      const byTenant = new Map<string, repo.JobView[]>();
      for (const job of jobs) {
        if (job.status !== 'pending' || job.queued_reason) continue;
        if (!job.client_id) startable.push(job);
        else byTenant.set(job.client_id, [...(byTenant.get(job.client_id) ?? []), job]);
      }
      for (const [clientId, candidates] of byTenant) {
        // Most tenants have no cap: their cascade jobs start without a transaction or a lock.
        const cap = (await limitsOf(knex, clientId)).max_running_jobs;
        if (cap === null) {
          startable.push(...candidates);
          continue;
        }
        const admitted = await inTransaction(knex, async (trx) => {
          await repo.lockTenantSlots(trx, clientId);
          // The candidates are counted among the active jobs: the others are what the cap leaves room beside.
          const free = Math.max(0, cap - ((await repo.countActiveJobs(trx, clientId)) - candidates.length));
          const ordered = [...candidates].sort((a, b) => a.priority - b.priority || a.created_at.getTime() - b.created_at.getTime());
          const held = ordered.slice(free);
          await repo.holdJobs(
            trx,
            held.map((j) => j.job_id),
            heldReason(clientId, cap),
          );
          for (const job of held) metrics?.jobQueued(job.trigger, tenantClass(clientId, job.tenant_limits, deps.perTenantMetrics));
          return ordered.slice(0, free);
        });
        startable.push(...admitted);
      }
      return startable;
    },

    /** Every tenant with held jobs, in turn (the safety net for a missed notification, and after a cap is raised). */
    async releaseAll(): Promise<number> {
      let n = 0;
      for (const clientId of await repo.tenantsWithHeldJobs(knex)) n += await release(clientId);
      return n;
    },
  };
}

export type JobSlots = ReturnType<typeof createJobSlots>;
