import type { Schemas } from '../../openapi/types';
import type { Knex } from 'knex';
import * as repo from '../../db/jobs.repository';
import { fairnessKeyFor, type JobGateway, type Readiness } from '../ports';
import type { Principal } from '../../auth/principal';
import { uuidv7 } from '../../ids';
import { UnavailableError, UnprocessableError, type LimitDecision } from '../../errors';
import type { Db } from '../../db/types';
import { inTransaction } from '../../db/transaction';
import { tenantClass } from '../common';
import type { Admission } from './launch/admission';
import type { JobSlots } from './launch/job-slots';
import { FairStarts } from './launch/start-queue';
import { jobStarter, type StarterDeps } from './launch/job-starter';
import { DEFAULT_PRIORITY } from './launch/priorities';

export interface JobRequestContext {
  principal: Principal;
  /** Optional Idempotency-Key header: a repeated key from the same caller returns the first job. */
  idempotencyKey?: string;
  /** Hash of the operation's path parameters and body. */
  fingerprint?: string;
  operation: string;
  /** The tenant the route names (its `client_id`), whose jobs take its bucket: refused before the transaction while it is empty. */
  tenant?: string;
}

export type JobAccepted = Schemas['JobAccepted'];

/**
 * What a job-starting request is answered: the job (or, for a repeated Idempotency-Key, the first one) and the
 * tenant bucket's decision on it, which the route turns into RateLimit headers (none: no bucket was taken).
 */
export interface JobStarted<T extends JobAccepted = JobAccepted> {
  accepted: T;
  admission?: LimitDecision;
}

/** Stages one job inside the transaction of `JobsService.start` (its token, its slot decision and its row). */
export type StageJob = (job: StagedJob) => Promise<repo.JobView>;
type StagedJob = Omit<repo.NewJob, 'job_id'> & { job_id?: string };

/** Raised inside a transaction when the Idempotency-Key already started a job, so the caller's writes roll back. */
class IdempotentReplay extends Error {
  constructor(readonly job: repo.JobView) {
    super('idempotent replay');
  }
}

/** Workflow starts one API process runs at once, after answering; more wait their tenant's turn (FairStarts). */
const START_CONCURRENCY = 16;
/** Starts running or waiting, at most; past that a start request waits for its own (back-pressure on a slow Temporal). */
const MAX_BACKGROUND_STARTS = 64;

export interface JobStagingDeps extends StarterDeps {
  /** The tenant's job bucket, checked in the transaction that writes each job; none: no limit. */
  admission?: Admission;
  /** The tenant's running-job cap; none: no cap. */
  slots?: JobSlots;
  /** `false` (JOB_FAIRNESS=off): starts are served first come, first served, as before tenants took turns. */
  fairness?: boolean;
  /** Metric series per tenant id instead of per tenant class (METRICS_PER_TENANT). */
  perTenantMetrics?: boolean;
}

const owner = (ctx: JobRequestContext) => `${ctx.principal.subject}:${ctx.operation}`;

/** The first job of a repeated Idempotency-Key; the same key with another request is a 422. */
function replay(gateway: JobGateway, job: repo.JobView, ctx: JobRequestContext): JobAccepted {
  if (job.idempotency_fingerprint !== (ctx.fingerprint ?? null)) {
    throw new UnprocessableError('Idempotency-Key was already used for a different request');
  }
  return { ...(job.service_id ? { service_id: job.service_id } : {}), job_id: job.job_id, job_url: gateway.uiUrl(job.job_id) };
}

/** Refuses (503) while Temporal could not start a job: a 202 promises the job will run. */
function assertReady(ready: Readiness): void {
  if (!ready.ok) throw new UnavailableError(`jobs cannot start now: ${ready.reason}`);
}

/**
 * The job row with its tenant's token and running-job slot decision, in the caller's transaction: a 429 or a
 * rollback leaves none of them. Temporal's readiness is asked before the transaction (no Temporal call holds its locks).
 */
async function stageIn(
  deps: Pick<JobStagingDeps, 'admission' | 'slots'>,
  trx: Db,
  job: StagedJob,
  ctx?: JobRequestContext,
): Promise<{ row: repo.JobView; admission?: LimitDecision }> {
  const idem = ctx?.idempotencyKey
    ? { idempotency_key: ctx.idempotencyKey, idempotency_owner: owner(ctx), idempotency_fingerprint: ctx.fingerprint ?? null }
    : {};
  const clientId = job.client_id ?? null;
  const admitted = await deps.admission?.job(trx, clientId);
  const queued_reason = admitted && deps.slots ? await deps.slots.holdReason(trx, clientId, admitted.limits) : null;
  const priority = job.priority ?? DEFAULT_PRIORITY[job.trigger];
  // A scheduled job's id is derived from its fire (src/domain/schedule-fires.ts); every other job's is new.
  const { row, created } = await repo.insertJob(trx, { ...job, ...idem, priority, queued_reason, job_id: job.job_id ?? uuidv7() });
  if (!created) throw new IdempotentReplay(row);
  return { row, admission: admitted?.decision };
}

/** The API process's pool of workflow starts that run after the answer, taken in turn by tenant. */
function createStartPool(deps: JobStagingDeps) {
  const backgroundStarts = new Set<Promise<unknown>>();
  const starts = new FairStarts(START_CONCURRENCY);
  const start = jobStarter(deps);
  const fair = deps.fairness ?? true;

  /**
   * Starts the workflow of a committed job after the answer (docs/decisions.md, "Job starts"): the row is committed,
   * so the 202 stands whatever the start does. A transient failure leaves the row `pending` and the worker's
   * reconciler starts it later; a start Temporal refuses for good marks the job failed, visibly, with the reason.
   * With MAX_BACKGROUND_STARTS starts under way, the caller waits for its own (back-pressure on a slow Temporal).
   */
  async function launch(job: repo.JobView): Promise<JobAccepted> {
    const accepted = { job_id: job.job_id, job_url: deps.gateway.uiUrl(job.job_id) };
    if (job.queued_reason) {
      // Held for a slot: the worker's releaser starts it when one of the tenant's jobs finishes.
      deps.metrics?.jobQueued(job.trigger, tenantClass(job.client_id, job.tenant_limits, deps.perTenantMetrics));
      return accepted;
    }
    const started: Promise<unknown> = starts
      .run(fair ? fairnessKeyFor(job.client_id) : '', () => start(job))
      .finally(() => backgroundStarts.delete(started));
    backgroundStarts.add(started);
    if (starts.size > MAX_BACKGROUND_STARTS) await started;
    return accepted;
  }

  /** Waits for the starts still under way (shutdown: a start cut off here is left to the reconciler). */
  async function settle(): Promise<void> {
    await Promise.all([...backgroundStarts]);
  }

  return { launch, settle };
}

/** The start of jobs: staged in a transaction (once per Idempotency-Key), their workflows started after the commit. */
export function createJobStaging(deps: JobStagingDeps) {
  const { knex, gateway } = deps;
  const { launch, settle } = createStartPool(deps);

  return {
    /**
     * Whether Temporal can start jobs now (the gateway's cached answer): asked before a transaction that may stage a
     * job, so that no Temporal call runs while the transaction holds its locks, and handed to `stage`.
     */
    readiness: (): Promise<Readiness> => gateway.readiness(),

    /**
     * The one start of a job-starting request: once per Idempotency-Key (a repeat answers the first job and changes
     * nothing, its transaction rolled back; the same key with another request is a 422), Temporal's readiness before
     * the transaction, then `write` stages the job in one transaction with whatever the request changes beside it,
     * the commit, and the workflow's start after it (`launch`). Answers the job and the tenant bucket's decision.
     */
    async start(ctx: JobRequestContext, write: (trx: Knex.Transaction, stage: StageJob) => Promise<repo.JobView>): Promise<JobStarted> {
      if (ctx.idempotencyKey) {
        const existing = await repo.findByIdempotencyKey(knex, owner(ctx), ctx.idempotencyKey);
        if (existing) return { accepted: replay(gateway, existing, ctx) };
      }
      await deps.admission?.refuseWhileEmpty(ctx.tenant);
      assertReady(await gateway.readiness());
      let admission: LimitDecision | undefined;
      try {
        const job = await inTransaction(knex, (trx) => {
          admission = undefined; // a deadlock victim's attempt is re-run from here
          return write(trx, async (staged) => {
            const { row, admission: decision } = await stageIn(deps, trx, staged, ctx);
            admission = decision;
            return row;
          });
        });
        return { accepted: await launch(job), admission };
      } catch (err) {
        if (err instanceof IdempotentReplay) return { accepted: replay(gateway, err.job, ctx) };
        throw err;
      }
    },

    /**
     * Stages a job row inside the caller's transaction (a job no request asked for: a service update's re-run, a
     * schedule's fire); launch it after commit. `ready` is `readiness()`, asked before the transaction: a 503 when it
     * is not ok rolls the caller's transaction back.
     */
    async stage(trx: Knex.Transaction, job: StagedJob, ready: Readiness): Promise<repo.JobView> {
      assertReady(ready);
      return (await stageIn(deps, trx, job)).row;
    },

    launch,
    settle,

    /** Validates a caller-supplied inference input against the model's inference input_schema. */
    assertInputFits(
      contracts: { inference?: { input_schema?: unknown }; training?: { input_schema?: unknown } } | null,
      kind: 'inference' | 'training',
      input: unknown,
    ) {
      const schema = contracts?.[kind]?.input_schema;
      if (schema === undefined) return;
      const problem = deps.schemas.validate(schema, input);
      if (problem) throw new UnprocessableError(`input does not match the ${kind} input_schema: ${problem}`);
    },
  };
}
