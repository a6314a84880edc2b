import type { Knex } from 'knex';
import type { Db } from '../../../db/types';
import { findClient } from '../../../db/clients.repository';
import { bucketLevel, takeToken, type BucketState } from '../../../db/rate-limits.repository';
import { actorOf, type Principal } from '../../../auth/principal';
import { visibleTenants } from '../../../auth/access';
import { RateLimitedError, UnprocessableError, type LimitDecision } from '../../../errors';
import type { ServiceMetrics } from '../../../observability/metrics';
import { effectiveLimits, tenantClass, type LimitDefaults, type LimitsOverride, type TenantLimits } from '../../common';

function decision(policy: LimitDecision['policy'], holder: string, state: BucketState, rate: number, burst: number): LimitDecision {
  const remaining = Math.max(0, Math.floor(state.tokens));
  const untilNext = Math.ceil((1 - state.tokens) / rate);
  const untilFull = Math.ceil((burst - state.tokens) / rate);
  return {
    policy,
    holder,
    allowed: state.allowed,
    remaining,
    resetSeconds: Math.max(1, remaining > 0 ? untilFull : untilNext),
    rate,
    burst,
  };
}

/**
 * Who may start how much (docs/fairness.md): a token bucket per tenant for the jobs its routes start, and one per
 * caller for the requests of callers that are not platform callers. Buckets live in Postgres, one statement per
 * decision, so every API replica draws from the same ones.
 */
export function createAdmission(deps: { knex: Knex; defaults: LimitDefaults; metrics?: ServiceMetrics; perTenantMetrics?: boolean }) {
  const { defaults, metrics } = deps;
  // The tenants whose job bucket this process last found empty, until its next token: only a refill adds tokens to a
  // bucket (a changed policy is another bucket), so a job before then would be refused too, and is refused without
  // its transaction. One entry per tenant, removed by its next accepted job or check after the token.
  const emptyUntil = new Map<string, { bucket: string; until: number; refusal: LimitDecision }>();

  async function take(db: Db, policy: LimitDecision['policy'], bucket: string, holder: string, rate: number, burst: number) {
    return decision(policy, holder, await takeToken(db, bucket, rate, burst), rate, burst);
  }

  /** A tenant's job refused (429): counted by its tenant class, then thrown. */
  function refuseJob(
    clientId: string,
    override: LimitsOverride | null,
    refusal: LimitDecision,
    needed?: { count: number; what: string },
  ): never {
    metrics?.requestThrottled('jobs', tenantClass(clientId, override, deps.perTenantMetrics));
    throw new RateLimitedError(refusal, needed);
  }

  async function tenantLimits(db: Db, clientId: string | null): Promise<{ limits: TenantLimits; override: LimitsOverride | null }> {
    const override = clientId ? ((await findClient(db, clientId))?.limits ?? null) : null;
    return { limits: effectiveLimits(defaults, override), override };
  }

  return {
    /**
     * Every authenticated request: callers of tenants take a token of their own bucket, 429 past it. Platform
     * callers (administrators, platform clients) are the operator's own and are not limited here; the jobs they
     * start for a tenant count against that tenant.
     */
    async request(principal: Principal): Promise<LimitDecision | undefined> {
      // A job token completes one job, idempotently: no bucket of its own (one per job would only fill the table).
      if (defaults.requestsPerSecond <= 0 || principal.kind === 'job' || visibleTenants(principal) === undefined) return undefined;
      const caller = `${principal.kind === 'machine' ? 'client' : 'user'}:${actorOf(principal) ?? principal.subject}`;
      const d = await take(
        deps.knex,
        'requests',
        `requests:${caller}`,
        `caller ${caller}`,
        defaults.requestsPerSecond,
        defaults.requestsBurst,
      );
      if (!d.allowed) {
        metrics?.requestThrottled('requests', 'caller');
        throw new RateLimitedError(d);
      }
      return d;
    },

    /**
     * A job of `clientId`, in the transaction that writes it (a 429 rolls the whole change back): the tenant's
     * bucket, with its override of the defaults. Answers the tenant's limits, for its running-job cap. Jobs of no
     * tenant (the global model routes, platform callers only) take no token.
     */
    async job(
      trx: Db,
      clientId: string | null,
    ): Promise<{ limits: TenantLimits; override: LimitsOverride | null; decision?: LimitDecision }> {
      const { limits, override } = await tenantLimits(trx, clientId);
      if (!clientId || limits.jobs_per_second <= 0) return { limits, override };
      const { jobs_per_second: rate, burst } = limits;
      const bucket = jobBucket(clientId, limits);
      const asked = Date.now(); // not later than the statement's own time, from which its refill counts
      const state = await takeToken(trx, bucket, rate, burst);
      const d = decision('jobs', `tenant ${clientId}`, state, rate, burst);
      if (!d.allowed) {
        emptyUntil.set(clientId, { bucket, until: asked + ((1 - state.tokens) / rate) * 1000, refusal: d });
        refuseJob(clientId, override, d);
      }
      emptyUntil.delete(clientId);
      return { limits, override, decision: d };
    },

    /**
     * Before a job's transaction: refuses (429) at once when this process found `clientId`'s bucket (under the
     * tenant's limits now) empty and its next token is not due yet. One read of the tenant's limits instead of the
     * job's whole transaction: a flood's excess costs the database little.
     */
    async refuseWhileEmpty(clientId: string | undefined): Promise<void> {
      const empty = clientId === undefined ? undefined : emptyUntil.get(clientId);
      if (!clientId || !empty) return;
      // Past the token's time the transaction decides again; before it, the limits say whether the bucket is the same.
      if (empty.until <= Date.now()) {
        emptyUntil.delete(clientId);
        return;
      }
      const { limits, override } = await tenantLimits(deps.knex, clientId);
      const left = empty.until - Date.now();
      if (left <= 0 || limits.jobs_per_second <= 0 || jobBucket(clientId, limits) !== empty.bucket) {
        emptyUntil.delete(clientId);
        return;
      }
      refuseJob(clientId, override, { ...empty.refusal, remaining: 0, resetSeconds: Math.max(1, Math.ceil(left / 1000)) });
    },

    /**
     * Refuses at once what asks `count` of `clientId`'s jobs when its bucket cannot hold them now (429, with the
     * count) or ever (422: more than the burst), taking nothing: a schedule's trigger or backfill is answered when it
     * is asked, and its fires then take their tokens one by one as they run (src/domain/schedules/schedule-fires.ts).
     */
    async assertRoom(clientId: string | null, count: number, what: string): Promise<void> {
      const { limits, override } = await tenantLimits(deps.knex, clientId);
      if (!clientId || limits.jobs_per_second <= 0 || count <= 0) return;
      const { jobs_per_second: rate, burst } = limits;
      if (count > burst) {
        throw new UnprocessableError(
          `${what} starts ${count} jobs, more than tenant ${clientId}'s burst of ${burst}: split it into parts of at most ${burst}`,
        );
      }
      const tokens = await bucketLevel(deps.knex, jobBucket(clientId, limits), rate, burst);
      if (tokens >= count) return;
      const state = { allowed: false, tokens };
      const refused = { ...decision('jobs', `tenant ${clientId}`, state, rate, burst), resetSeconds: Math.ceil((count - tokens) / rate) };
      refuseJob(clientId, override, refused, { count, what });
    },
  };
}

/**
 * A bucket per policy: a changed override (or its removal) takes effect at once with a full bucket of the new
 * burst, instead of refilling, at the new rate, what the old policy emptied.
 */
function jobBucket(clientId: string, limits: TenantLimits): string {
  return `jobs:tenant:${clientId}:${limits.jobs_per_second}/${limits.burst}`;
}

export type Admission = ReturnType<typeof createAdmission>;
