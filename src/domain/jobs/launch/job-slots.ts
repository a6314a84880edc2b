import * as repo from '../../../db/jobs.repository';
import { findClient } from '../../../db/clients.repository';
import type { Db } from '../../../db/types';
import { inTransaction } from '../../../db/transaction';
import { effectiveLimits, tenantClass, type LimitDefaults, type TenantLimits } from '../../common';
import { fairnessKeyFor } from '../../ports';
import { FairStarts } from './start-queue';
import { jobStarter, type StarterDeps } from './job-starter';
import { activeJobCounts } from '../../../db/job-shares.repository';
import { roomFor } from './fair-share';

/** Starts of released jobs in flight at once (each one Temporal call). */
const RELEASE_CONCURRENCY = 8;

/** Held jobs one tenant gets per turn of a release round, for a fairness weight of 1. */
const RELEASE_QUANTUM = 4;

/**
 * Inside the tenant's lock: the written candidates its cap and share leave room for, in priority and then age order;
 * the rest are held with the reason.
 */
async function admitTenant(
  deps: Pick<SlotsDeps, 'metrics' | 'perTenantMetrics'>,
  trx: Db,
  tenant: { clientId: string; limits: TenantLimits; capacity: number },
  candidates: repo.JobView[],
): Promise<repo.JobView[]> {
  const { clientId, limits, capacity } = tenant;
  await repo.lockTenantSlots(trx, clientId);
  // The candidates are counted among the active jobs: the others are what the cap and share leave room beside.
  const counts = await activeJobCounts(trx, clientId);
  const before = { ...counts, mine: counts.mine - candidates.length, total: counts.total - candidates.length };
  const free = roomFor(clientId, limits, capacity, before).room;
  const ordered = [...candidates].sort((a, b) => a.priority - b.priority || a.created_at.getTime() - b.created_at.getTime());
  const held = ordered.slice(free);
  const full = {
    ...before,
    mine: before.mine + Math.min(free, ordered.length),
    total: before.total + Math.min(free, ordered.length),
  };
  await repo.holdJobs(
    trx,
    held.map((j) => j.job_id),
    roomFor(clientId, limits, capacity, full).reason ?? 'the job starts when its tenant has room',
  );
  for (const job of held) deps.metrics?.jobQueued(job.trigger, tenantClass(clientId, job.tenant_limits, deps.perTenantMetrics));
  return ordered.slice(0, free);
}

/** The written jobs still to start: those of no tenant, and the others by tenant. */
function byTenantOf(jobs: repo.JobView[]): { startable: repo.JobView[]; byTenant: Map<string, repo.JobView[]> } {
  const startable: repo.JobView[] = [];
  const byTenant = new Map<string, repo.JobView[]>();
  for (const job of jobs) {
    if (job.status !== 'pending' || job.queued_reason) continue;
    if (!job.client_id) startable.push(job);
    else byTenant.set(job.client_id, [...(byTenant.get(job.client_id) ?? []), job]);
  }
  return { startable, byTenant };
}

/** The tenant's limits: its own overrides over the defaults. */
async function tenantLimits(defaults: LimitDefaults, db: Db, clientId: string): Promise<TenantLimits> {
  return effectiveLimits(defaults, (await findClient(db, clientId))?.limits);
}

/** Whether a tenant's jobs are counted at all: an explicit cap or fair shares. */
function isCounted(limits: TenantLimits, capacity: number): boolean {
  return limits.max_running_jobs !== null || capacity > 0;
}

/** Tenants in turn from the one after `lastServed` (all of them, in order, when none was served yet). */
function turnAfter(tenants: string[], lastServed: string | undefined): string[] {
  const from = lastServed === undefined ? 0 : tenants.findIndex((t) => t > lastServed);
  return from < 0 ? tenants : [...tenants.slice(from), ...tenants.slice(0, from)];
}

type SlotsDeps = StarterDeps & { defaults: LimitDefaults; perTenantMetrics?: boolean };

/**
 * A tenant's running-job cap and its fair share of the workers (docs/fairness.md, "Concurrency caps" and "Jobs: fair
 * shares"): a job past either is written `pending` with a `queued_reason` and not started; when jobs finish, held jobs
 * start in weighted round robin across tenants, each tenant's highest priority first, then oldest. Every decision
 * about one tenant's slots takes the tenant's lock (an advisory lock held to the end of the transaction), so a start
 * and a release never both take the tenant's last free slot.
 */
export function createJobSlots(deps: SlotsDeps) {
  const { knex, metrics } = deps;
  const start = jobStarter(deps);
  const starts = new FairStarts(RELEASE_CONCURRENCY);
  const capacity = deps.defaults.jobCapacity ?? 0;
  /** The tenant served last by a release round: the next round starts after it. */
  let lastServed: string | undefined;

  const limitsOf = (db: Db, clientId: string) => tenantLimits(deps.defaults, db, clientId);
  const counted = (limits: TenantLimits) => isCounted(limits, capacity);

  /** Starts up to `most` of the tenant's held jobs, as many as its cap and share leave room for; answers how many. */
  async function release(clientId: string, most = 1000): Promise<number> {
    // Every finished job of a tenant asks for a release; most tenants hold nothing, and then the release is one
    // read, without a transaction or the tenant's lock.
    if (!(await repo.hasHeldJobs(knex, clientId))) return 0;
    const released = await inTransaction(knex, async (trx) => {
      const limits = await limitsOf(trx, clientId);
      await repo.lockTenantSlots(trx, clientId);
      const { room } = counted(limits) ? roomFor(clientId, limits, capacity, await activeJobCounts(trx, clientId)) : { room: most };
      return room > 0 ? repo.releaseHeldJobs(trx, clientId, Math.min(room, most)) : [];
    });
    for (const job of released) metrics?.jobReleased(job.trigger, tenantClass(clientId, job.tenant_limits, deps.perTenantMetrics));
    await Promise.all(released.map((job) => starts.run(fairnessKeyFor(job.client_id), () => start(job))));
    return released.length;
  }

  return {
    release,

    /** Inside the transaction that writes a job: why it must wait, or null when it may start now. */
    async holdReason(trx: Db, clientId: string | null, limits: TenantLimits): Promise<string | null> {
      if (!clientId || !counted(limits)) return null;
      await repo.lockTenantSlots(trx, clientId);
      return roomFor(clientId, limits, capacity, await activeJobCounts(trx, clientId)).reason ?? null;
    },

    /**
     * Cascade jobs the outcome step wrote (pending, not held): the ones the tenant's cap leaves room for, to start;
     * the rest are held. A cascade counts against the tenant of its source job, whose finish freed a slot.
     */
    async admitWritten(jobs: repo.JobView[]): Promise<repo.JobView[]> {
      const { startable, byTenant } = byTenantOf(jobs);
      for (const [clientId, candidates] of byTenant) {
        // With no cap and shares off, cascade jobs start without a transaction or a lock.
        const limits = await limitsOf(knex, clientId);
        if (!counted(limits)) {
          startable.push(...candidates);
          continue;
        }
        const admitted = await inTransaction(knex, (trx) => admitTenant(deps, trx, { clientId, limits, capacity }, candidates));
        startable.push(...admitted);
      }
      return startable;
    },

    /**
     * A release round: every tenant with held jobs, in turn from the one after the tenant served last, gets up to
     * its quantum (RELEASE_QUANTUM × its fairness weight) per turn while its cap and share leave room; turns go on
     * until no tenant can start more. Run when any job finishes, and as the sweep (a missed notification, a raised cap).
     */
    async releaseAll(): Promise<number> {
      const tenants = (await repo.tenantsWithHeldJobs(knex)).filter((t): t is string => t !== null).sort();
      let turn = turnAfter(tenants, lastServed);
      let n = 0;
      while (turn.length > 0) {
        const next: string[] = [];
        for (const clientId of turn) {
          const quantum = Math.max(1, Math.round(RELEASE_QUANTUM * (await limitsOf(knex, clientId)).fairness_weight));
          const released = await release(clientId, quantum);
          n += released;
          if (released > 0) lastServed = clientId;
          if (released === quantum) next.push(clientId);
        }
        turn = next;
      }
      return n;
    },
  };
}

export type JobSlots = ReturnType<typeof createJobSlots>;
