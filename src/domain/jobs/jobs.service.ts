import type { Schemas } from '../../openapi/types';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import * as repo from '../../db/jobs.repository';
import { jobStore } from '../../db/job-store';
import type { JobStore } from '../ports';
import { fairnessKeyFor, workflowIdFor, type JobGateway, type Readiness } from '../ports';
import { recordCancellation } from './run/job-outcomes';
import { OUTPUT_UNSTORABLE, unstorableReason } from './run/storable-outcomes';
import type { CompletionReport } from '../../../workflows/definitions';
import type { UserSchemaCompiler } from '../common';
import type { Principal } from '../../auth/principal';
import { canSeeJob, visibleTenants } from '../../auth/access';
import { mapPage, type PageRequest } from '../../paging';
import { uuidv7 } from '../../ids';
import { requireClient } from '../common';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError, UnavailableError, UnprocessableError } from '../../errors';
import type { Db } from '../../db/types';
import type { ServiceMetrics } from '../../observability/metrics';
import { toJob, toLineage } from '../common';
import type { JobFinalListener } from '../../db/job-final-listener';
import { inTransaction } from '../../db/transaction';
import type { LimitDecision } from '../../errors';
import type { Admission } from './launch/admission';
import type { JobSlots } from './launch/job-slots';
import { FairStarts } from './launch/start-queue';
import { jobStarter } from './launch/job-starter';
import { tenantClass } from '../common';
import { DEFAULT_PRIORITY } from './launch/priorities';

/** The most jobs a lineage answer holds; a larger tree is cut (shallowest jobs first) and says `truncated`. */
export const MAX_LINEAGE_JOBS = 500;

/** The search filters of GET /v2/jobs and the tenant job list, as the query gives them. */
export type JobSearchQuery = Omit<repo.JobFilter, 'visible_client_ids' | 'created_after' | 'created_before'> & {
  created_after?: string;
  created_before?: string;
};

/** A date-time filter (its RFC 3339 form checked by the request validator) within what Postgres and Date both hold. */
function instant(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  // The format admits a leap second (23:59:60), which Date cannot hold.
  if (Number.isNaN(date.getTime())) throw new InvalidInputError(`${name} must be an RFC 3339 date-time such as 2026-12-10T00:00:00Z`);
  if (date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) throw new InvalidInputError(`${name} must be in years 0001-9999`);
  return date;
}

export interface JobRequestContext {
  principal: Principal;
  /** Optional Idempotency-Key header: a repeated key from the same caller returns the first job. */
  idempotencyKey?: string;
  /** Hash of the operation's path parameters and body. */
  fingerprint?: string;
  operation: string;
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

/** Who did it, as recorded on the job: `user:<username>` or `client:<client_id>`. */
function actor(principal: Principal): string {
  if (principal.kind === 'job') return principal.subject;
  return principal.kind === 'human' ? `user:${principal.username}` : `client:${principal.clientId}`;
}

/** Workflow starts one API process runs at once, after answering; more wait their tenant's turn (FairStarts). */
const START_CONCURRENCY = 16;
/** Starts running or waiting, at most; past that a start request waits for its own (back-pressure on a slow Temporal). */
const MAX_BACKGROUND_STARTS = 64;

/**
 * The completion's answer from the job's record, once the workflow no longer answers it: the stored answer for a
 * repeat of the recorded status, 409 for a cancelled or timed-out job or another status, 503 while it is finishing.
 */
export function completionFromRecord(job: repo.JobView, report: CompletionReport): repo.CompletionResult {
  if (job.status === 'cancelled') throw new ConflictError(`the job was cancelled by ${job.cancelled_by}`);
  if (job.status === 'timed_out') throw new ConflictError('the job already timed out');
  if (job.status !== report.status) throw new ConflictError(`the job was already reported ${job.status}`);
  if (!job.completion_result) throw new UnavailableError('the job is finishing; retry the completion shortly');
  return job.completion_result;
}

export function createJobsService(deps: {
  knex: Knex;
  gateway: JobGateway;
  schemas: UserSchemaCompiler;
  log: Logger;
  metrics?: ServiceMetrics;
  /** Longest a completion waits for the workflow's answer before a 503. */
  completionWaitSeconds: number;
  /** Wakes `?wait=` reads when a job reaches a final status; without it a read answers at once. */
  finals?: JobFinalListener;
  /** The tenant's job bucket, checked in the transaction that writes each job; none: no limit. */
  admission?: Admission;
  /** The tenant's running-job cap; none: no cap. */
  slots?: JobSlots;
  /** `false` (JOB_FAIRNESS=off): starts are served first come, first served, as before tenants took turns. */
  fairness?: boolean;
  /** Metric series per tenant id instead of per tenant class (METRICS_PER_TENANT). */
  perTenantMetrics?: boolean;
  /** Where reads and the completion find jobs; Postgres through `knex` when omitted (unit tests pass one in memory). */
  store?: JobStore;
}) {
  const { knex, gateway, log, metrics } = deps;
  const store = deps.store ?? jobStore(knex);
  const fair = deps.fairness ?? true;
  const present = (row: repo.JobView) => toJob(row, { workflowId: workflowIdFor, uiUrl: (id) => gateway.uiUrl(id) });

  async function visibleJob(principal: Principal, modelId: string, version: string, jobId: string): Promise<repo.JobView> {
    // A job token names its job: any other is refused before a read (its holder learns nothing of it).
    if (principal.kind === 'job' && principal.jobId !== jobId) {
      throw new ForbiddenError(`this job token completes job ${principal.jobId} only`);
    }
    const job = await store.findJob(jobId);
    const reaches = principal.kind === 'job' || canSeeJob(principal, job?.client_id ?? null);
    // Jobs of other tenants answer 404 like missing ones, so their ids cannot be probed.
    if (!job || job.model_id !== modelId || job.model_version !== version || !reaches) {
      throw new NotFoundError(`job ${jobId} not found for model ${modelId} version ${version}`);
    }
    return job;
  }

  async function visibleById(principal: Principal, jobId: string): Promise<repo.JobView> {
    const job = await store.findJob(jobId);
    if (!job || !canSeeJob(principal, job.client_id)) throw new NotFoundError(`job ${jobId} not found`);
    return job;
  }

  /** The job once it is final, or as it is when `seconds` pass: woken by the final-status notification, never polled. */
  async function awaitFinal(job: repo.JobView, seconds: number): Promise<repo.JobView> {
    if (seconds <= 0 || !deps.finals || repo.TERMINAL_JOB_STATUSES.includes(job.status)) return job;
    let current = job;
    await deps.finals.waitFor(job.job_id, seconds * 1000, async () => {
      current = (await repo.findJob(knex, job.job_id)) ?? current;
      return repo.TERMINAL_JOB_STATUSES.includes(current.status);
    });
    return current;
  }

  /**
   * Temporal answered the update, so its history holds the outcome: the reconciler need not deliver it again. A failed
   * write is logged, not answered: it costs only that redelivery, which the workflow answers like a repeat.
   */
  async function confirm(jobId: string): Promise<void> {
    await store.confirmOutcome(jobId).catch((err: unknown) => log.warn({ err, jobId }, 'could not mark the outcome confirmed'));
  }

  /** The completion through the workflow's `completeJob` update, or from the record once the answer is stored. */
  async function completeJob(
    principal: Principal,
    modelId: string,
    version: string,
    jobId: string,
    report: CompletionReport,
  ): Promise<repo.CompletionResult> {
    const job = await visibleJob(principal, modelId, version, jobId);
    // Refused here rather than failed later: the handler still holds its result and can report it again within bounds.
    const unstorable = unstorableReason(report.output ?? {}) ?? unstorableReason(report.error ?? {}, 'error');
    if (unstorable) throw new InvalidInputError(`${OUTPUT_UNSTORABLE}: ${unstorable}`);
    // Once the answer is stored the workflow may be gone; until then it answers repeats itself.
    if (job.completion_result || job.status === 'timed_out' || job.status === 'cancelled') return completionFromRecord(job, report);
    if (job.status === 'pending') throw new ConflictError('the job has not been dispatched yet; retry shortly');
    const delivery = await gateway.complete(jobId, report, deps.completionWaitSeconds);
    switch (delivery.kind) {
      case 'answered':
        await confirm(jobId);
        return delivery.result;
      case 'conflict':
        throw new ConflictError(delivery.message);
      case 'closed': {
        await confirm(jobId);
        // The workflow closed between our read and the update: the record now holds the answer.
        const current = (await store.findJob(jobId))!;
        if (!current.completion_result && !repo.TERMINAL_JOB_STATUSES.includes(current.status)) {
          // An unfinished job with no workflow: it ran on another Temporal (TEMPORAL_MODE switched, another namespace),
          // or its history is gone. No report can reach it here.
          throw new ConflictError(
            `job ${jobId} is ${current.status} but its workflow ${workflowIdFor(jobId)} does not exist on this Temporal: it was started on ` +
              'another Temporal (after a switch of TEMPORAL_MODE, switch back with the same MOS_DATA_DIR to complete it) or its history is gone; ' +
              `POST /v2/jobs/${jobId}/cancel ends it here`,
          );
        }
        return completionFromRecord(current, report);
      }
      case 'unanswered': {
        // The workflow records a report with its answer in one step: a record that has the answer took the report.
        const current = (await store.findJob(jobId))!;
        if (current.completion_result) return completionFromRecord(current, report);
        throw new UnavailableError(
          repo.TERMINAL_JOB_STATUSES.includes(current.status)
            ? `the report was recorded and the job is still finishing; repeat the same completion for its answer`
            : `the report was not taken within ${deps.completionWaitSeconds} s: Temporal, the job's worker or the worker's database is unavailable. ` +
                'It may still be taken when they are back; repeat the same completion (repeats are idempotent)',
          { cause: delivery.cause },
        );
      }
    }
  }

  const backgroundStarts = new Set<Promise<unknown>>();
  const starts = new FairStarts(START_CONCURRENCY);
  const start = jobStarter(deps);

  const owner = (ctx: JobRequestContext) => `${ctx.principal.subject}:${ctx.operation}`;

  function replay(job: repo.JobView, ctx: JobRequestContext): JobAccepted {
    if (job.idempotency_fingerprint !== (ctx.fingerprint ?? null)) {
      throw new UnprocessableError('Idempotency-Key was already used for a different request');
    }
    return { ...(job.service_id ? { service_id: job.service_id } : {}), job_id: job.job_id, job_url: gateway.uiUrl(job.job_id) };
  }

  /**
   * Starts the workflow of a committed job after the answer (docs/decisions.md, "Job starts"): the row is committed,
   * so the 202 stands whatever the start does. A transient failure leaves the row `pending` and the worker's
   * reconciler starts it later; a start Temporal refuses for good marks the job failed, visibly, with the reason.
   * With MAX_BACKGROUND_STARTS starts under way, the caller waits for its own (back-pressure on a slow Temporal).
   */
  async function launch(job: repo.JobView): Promise<JobAccepted> {
    const accepted = { job_id: job.job_id, job_url: gateway.uiUrl(job.job_id) };
    if (job.queued_reason) {
      // Held for a slot: the worker's releaser starts it when one of the tenant's jobs finishes.
      metrics?.jobQueued(job.trigger, tenantClass(job.client_id, job.tenant_limits, deps.perTenantMetrics));
      return accepted;
    }
    const started: Promise<unknown> = starts
      .run(fair ? fairnessKeyFor(job.client_id) : '', () => start(job))
      .finally(() => backgroundStarts.delete(started));
    backgroundStarts.add(started);
    if (starts.size > MAX_BACKGROUND_STARTS) await started;
    return accepted;
  }

  /** Refuses (503) while Temporal could not start a job: a 202 promises the job will run. */
  function assertReady(ready: Readiness): void {
    if (!ready.ok) throw new UnavailableError(`jobs cannot start now: ${ready.reason}`);
  }

  /**
   * The job row with its tenant's token and running-job slot decision, in the caller's transaction: a 429 or a
   * rollback leaves none of them. Temporal's readiness is asked before the transaction (no Temporal call holds its locks).
   */
  async function stageIn(trx: Db, job: StagedJob, ctx?: JobRequestContext): Promise<{ row: repo.JobView; admission?: LimitDecision }> {
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
        if (existing) return { accepted: replay(existing, ctx) };
      }
      assertReady(await gateway.readiness());
      let admission: LimitDecision | undefined;
      try {
        const job = await inTransaction(knex, (trx) => {
          admission = undefined; // a deadlock victim's attempt is re-run from here
          return write(trx, async (staged) => {
            const { row, admission: decision } = await stageIn(trx, staged, ctx);
            admission = decision;
            return row;
          });
        });
        return { accepted: await launch(job), admission };
      } catch (err) {
        if (err instanceof IdempotentReplay) return { accepted: replay(err.job, ctx) };
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
      return (await stageIn(trx, job)).row;
    },

    launch,

    /** Waits for the starts still under way (shutdown: a start cut off here is left to the reconciler). */
    async settle(): Promise<void> {
      await Promise.all([...backgroundStarts]);
    },

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

    /** A job; with `waitFor` seconds, answered as soon as it is final, or as it is when the time runs out. */
    async get(principal: Principal, modelId: string, version: string, jobId: string, waitFor = 0) {
      return present(await awaitFinal(await visibleJob(principal, modelId, version, jobId), waitFor));
    },

    /** A job by id alone, with the same tenant check as the model-scoped read (and the same wait). */
    async getById(principal: Principal, jobId: string, waitFor = 0) {
      return present(await awaitFinal(await visibleById(principal, jobId), waitFor));
    },

    /** The job row the caller may see, or 404 (a job of another tenant answers like a missing one). */
    findVisible: visibleById,

    /** A model version's jobs, narrowed like the job search: a caller bound to tenants sees only theirs. */
    async listForVersion(
      principal: Principal,
      filter: Pick<repo.JobFilter, 'model_id' | 'model_version' | 'status' | 'job_type'>,
      page: PageRequest,
    ) {
      return mapPage(await repo.listJobs(knex, { ...filter, visible_client_ids: visibleTenants(principal) }, page), present);
    },

    /** Every job the caller may see that matches the filters: platform callers all tenants', others their tenants'. */
    async search(principal: Principal, query: JobSearchQuery, page: PageRequest) {
      const filter: repo.JobFilter = {
        ...query,
        visible_client_ids: visibleTenants(principal),
        created_after: instant('created_after', query.created_after),
        created_before: instant('created_before', query.created_before),
      };
      return mapPage(await repo.listJobs(knex, filter, page), present);
    },

    async listForClient(clientId: string, query: Omit<JobSearchQuery, 'client_id'>, page: PageRequest) {
      await requireClient(knex, clientId);
      const filter: repo.JobFilter = {
        ...query,
        client_id: clientId,
        created_after: instant('created_after', query.created_after),
        created_before: instant('created_before', query.created_before),
      };
      return mapPage(await repo.listJobs(knex, filter, page), present);
    },

    /** The cascade tree the job belongs to: its root and every descendant, at most MAX_LINEAGE_JOBS. */
    async lineage(principal: Principal, jobId: string) {
      const job = await visibleById(principal, jobId);
      const rows = await repo.lineage(knex, job.root_job_id, MAX_LINEAGE_JOBS + 1);
      // Cascades inherit their source's tenant; the filter keeps that true for what is shown even if a row broke it.
      const visible = rows.slice(0, MAX_LINEAGE_JOBS).filter((r) => canSeeJob(principal, r.client_id));
      return toLineage(job, visible, { truncated: rows.length > MAX_LINEAGE_JOBS, maxJobs: MAX_LINEAGE_JOBS });
    },

    /**
     * Cancels a pending or running job: records `cancelled` (who, why; the service or version moves to `failed`)
     * and then cancels its workflow, which stops an ECS task it started and fires nothing. A repeat returns the
     * cancelled job (and asks Temporal again); a job already final is a 409.
     */
    async cancel(principal: Principal, jobId: string, reason: string | undefined) {
      const job = await visibleById(principal, jobId);
      if (job.job_type === 'training' && !principal.permissions.has('train_model')) {
        throw new ForbiddenError('cancelling a training job needs permission train_model');
      }
      if (job.status !== 'cancelled') {
        const changed = await recordCancellation(knex, jobId, actor(principal), reason ?? null);
        if (!changed) {
          const current = (await repo.findJob(knex, jobId))!;
          if (current.status !== 'cancelled') throw new ConflictError(`job ${jobId} is already final: ${current.status}`);
        }
      }
      try {
        await gateway.cancel(jobId);
      } catch (err) {
        log.warn({ err, jobId }, 'the cancellation is recorded but Temporal did not take the workflow cancel');
        throw new UnavailableError(
          `job ${jobId} is cancelled (no completion is accepted), but its workflow could not be told: repeat the cancel to stop its task`,
          { cause: err },
        );
      }
      return present((await repo.findJob(knex, jobId))!);
    },

    /**
     * Reports a job complete through the workflow's `completeJob` update; the answer carries the cascade outcome.
     * A repeated report with the same status returns the first answer; another status is a 409.
     */
    async complete(
      principal: Principal,
      modelId: string,
      version: string,
      jobId: string,
      report: CompletionReport,
    ): Promise<repo.CompletionResult> {
      try {
        const result = await completeJob(principal, modelId, version, jobId, report);
        metrics?.completionReported(result.triggered_events.some((e) => e.error) ? '207' : '200');
        return result;
      } catch (err) {
        if (err instanceof ConflictError) metrics?.completionReported('409');
        throw err;
      }
    },
  };
}

export type JobsService = ReturnType<typeof createJobsService>;
