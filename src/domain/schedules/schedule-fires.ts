import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { inTransaction } from '../../db/transaction';
import { inChangeTransaction } from '../common';
import * as schedules from '../../db/schedules.repository';
import * as jobsRepo from '../../db/jobs.repository';
import { jobStore } from '../../db/job-store';
import { deterministicUuid } from '../../ids';
import { ServiceError, RateLimitedError, UnprocessableError } from '../../errors';
import { runRefusal } from '../common';
import { requireModel, requireVersion } from '../common';
import { moveToTraining, recordCancellation } from '../jobs';
import type { JobsService } from '../jobs';
import type { JobGateway, JobStore, Readiness } from '../ports';
import type { createServicesService } from '../services';
import { scheduleEvents } from './schedule-events';
import type { Outbox } from '../webhooks';

/**
 * How often a fire reads its job's row while Temporal cannot tell it when the job ends: no workflow of the job
 * exists yet (a held job), or the workflow closed leaving the row unfinished (the job reconciler fails such a row).
 */
const ROW_READ_MS = 5000;
/**
 * How often a fire heartbeats while Temporal's long poll is open: the poll answers about every 20 s, too close to the
 * activity's 30 s heartbeat timeout to be the only beat on a busy worker.
 */
const BEAT_MS = 5000;

/** The job a fire starts: the same schedule and nominal time always give the same id (a retried or repeated fire). */
export function scheduledJobId(scheduleId: string, nominalTime: Date): string {
  return deterministicUuid('schedule', scheduleId, nominalTime.toISOString());
}

export type FireOutcome =
  | { outcome: 'started'; jobId: string }
  | { outcome: 'skipped'; reason: string }
  /** The schedule's row is gone (deleted while the fire was on its way): nothing is recorded. */
  | { outcome: 'gone' };

/** A fire that the one-off action's rules refuse is a skipped run: these errors are the rules' (404/409/422). */
function isRuleRefusal(err: unknown): err is ServiceError {
  return err instanceof ServiceError && ['not_found', 'conflict', 'unprocessable'].includes(err.code);
}

type FireDeps = {
  knex: Knex;
  jobs: JobsService;
  services: Pick<ReturnType<typeof createServicesService>, 'stageRescore'>;
  /** Starts the workflows of committed job rows (a refused start marks the job failed; src/domain/job-runs.ts). */
  launch: (jobIds: string[]) => Promise<void>;
  /** Tells when a started job's workflow closes (`awaitFinal`). */
  gateway: Pick<JobGateway, 'awaitClosed'>;
  log: Logger;
  /** Where a fire's events are written (a skipped run, a version moved to training), with its change. */
  outbox: Outbox;
};

/** Stages the fire's job under the rules of the one-off action it repeats, in the caller's transaction. */
async function stageFire(
  deps: FireDeps,
  trx: Knex.Transaction,
  schedule: schedules.ScheduleView,
  nominalTime: Date,
  jobId: string,
  ready: Readiness,
) {
  const job = {
    job_id: jobId,
    trigger: 'schedule' as const,
    schedule_id: schedule.schedule_id,
    scheduled_at: nominalTime,
    metadata: schedule.metadata,
  };
  if (schedule.action === 'service_inference') {
    return deps.services.stageRescore(
      trx,
      { clientId: schedule.client_id!, domainId: schedule.domain_id!, serviceId: schedule.service_id! },
      job,
      ready,
    );
  }
  const modelId = schedule.model_id!;
  const version = schedule.model_version!;
  const model = await requireModel(trx, modelId);
  const input = schedule.input ?? {};
  deps.jobs.assertInputFits(model.handler_contracts, schedule.action, input);
  if (schedule.action === 'training') {
    await moveToTraining(deps.outbox, trx, modelId, version);
  } else {
    const row = await requireVersion(trx, modelId, version);
    const refusal = runRefusal(version, row.status, 'direct');
    if (refusal) throw new UnprocessableError(refusal);
  }
  return deps.jobs.stage(
    trx,
    {
      ...job,
      model_id: modelId,
      model_version: version,
      job_type: schedule.action,
      input,
    },
    ready,
  );
}

/** A fire decided earlier (a retried activity, a repeated backfill): its job is started again if it is still pending. */
async function replay(deps: FireDeps, run: schedules.ScheduleRunRow): Promise<FireOutcome> {
  if (run.outcome === 'skipped') return { outcome: 'skipped', reason: run.reason ?? '' };
  const job = await jobsRepo.findJob(deps.knex, run.job_id!);
  if (job?.status === 'pending') await deps.launch([job.job_id]);
  return { outcome: 'started', jobId: run.job_id! };
}

/** Records the fire as skipped for the rule that refused it, unless it was decided meanwhile (then that decision). */
function recordSkip(deps: FireDeps, fire: { scheduleId: string; nominalTime: Date; workflowId: string; jobId: string }, reason: string) {
  const { scheduleId, nominalTime, workflowId, jobId } = fire;
  return inTransaction(deps.knex, async (trx): Promise<FireOutcome> => {
    const schedule = await schedules.findSchedule(trx, scheduleId);
    if (!schedule) return { outcome: 'gone' };
    const run = { schedule_id: scheduleId, nominal_time: nominalTime, workflow_id: workflowId };
    if (!(await schedules.insertRun(trx, { ...run, outcome: 'skipped', job_id: null, reason }))) {
      const earlier = (await schedules.findRun(trx, scheduleId, nominalTime))!;
      return earlier.outcome === 'skipped' ? { outcome: 'skipped', reason: earlier.reason ?? '' } : { outcome: 'started', jobId };
    }
    await scheduleEvents.runSkipped(deps.outbox(trx), schedule, nominalTime, reason);
    deps.log.info({ scheduleId, nominalTime, reason }, 'scheduled fire skipped');
    return { outcome: 'skipped', reason };
  });
}

/** What a fire's wait reads: the job's row, the authority for its status, and Temporal's wait for its workflow. */
export type JobWaitDeps = {
  store: Pick<JobStore, 'findJob'>;
  gateway: Pick<JobGateway, 'awaitClosed'>;
  /** ROW_READ_MS unless set (tests). */
  rowReadMs?: number;
};

/**
 * The job's status once it is final, or undefined when `waitMs` passes first or `signal` aborts. The job's workflow
 * writes the row's final status before it closes, so the row is read once, then again when Temporal answers that the
 * workflow closed (the gateway's long poll, which ends with the wait); `beat` is called between Temporal's answers.
 * Without a workflow to wait on (a held job, not started yet) the row is read every ROW_READ_MS, and the workflow
 * waited on once it exists; after a close that left the row unfinished, the row alone, until the wait ends.
 */
export async function awaitFinalStatus(
  deps: JobWaitDeps,
  jobId: string,
  waitMs: number,
  beat: () => void,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const deadline = Date.now() + waitMs;
  let closed = false;
  let ended = false;
  for (;;) {
    if (signal?.aborted) return undefined;
    const job = await deps.store.findJob(jobId);
    if (!job) return 'gone';
    if (jobsRepo.TERMINAL_JOB_STATUSES.includes(job.status)) return job.status;
    const left = deadline - Date.now();
    if (left <= 0 || ended) return undefined;
    beat();
    if (!closed) {
      const beating = setInterval(beat, BEAT_MS);
      const workflow = await deps.gateway.awaitClosed(jobId, { deadline, signal }, beat).finally(() => clearInterval(beating));
      // Open at the end of Temporal's wait: the row read once more is the answer.
      ended = workflow === 'open';
      closed = workflow === 'closed';
      if (workflow !== 'absent') continue;
    }
    await sleep(Math.min(left, deps.rowReadMs ?? ROW_READ_MS), undefined, { signal }).catch(() => undefined);
  }
}

/**
 * A schedule's fires, run by its fire workflow (workflows/scheduled-job.workflow.ts): each starts one job through
 * the job path of the one-off action it repeats (its rules, `jobs.stage`, the gateway's start), exactly once per
 * (schedule, nominal time): the run row and the job row are written in one transaction, keyed by both.
 */
export function createScheduleFires(deps: FireDeps) {
  const { knex, jobs } = deps;

  return {
    /** Decides the fire at `nominalTime` once: one job started, or a skipped run with the rule that refused it. */
    async fire(scheduleId: string, nominalTime: Date, workflowId: string): Promise<FireOutcome> {
      const decided = await schedules.findRun(knex, scheduleId, nominalTime);
      if (decided) return replay(deps, decided);
      const jobId = scheduledJobId(scheduleId, nominalTime);
      let refusal: ServiceError | undefined;
      // Asked before the transaction: no Temporal call while it holds its locks.
      const ready = await jobs.readiness();
      try {
        const outcome = await inTransaction(knex, async (trx): Promise<FireOutcome | schedules.ScheduleRunRow> => {
          const schedule = await schedules.findSchedule(trx, scheduleId);
          if (!schedule) return { outcome: 'gone' };
          const run = { schedule_id: scheduleId, nominal_time: nominalTime, workflow_id: workflowId };
          if (!(await schedules.insertRun(trx, { ...run, outcome: 'started', job_id: jobId, reason: null }))) {
            return (await schedules.findRun(trx, scheduleId, nominalTime))!;
          }
          await stageFire(deps, trx, schedule, nominalTime, jobId, ready);
          return { outcome: 'started', jobId };
        });
        if ('nominal_time' in outcome) return replay(deps, outcome);
        if (outcome.outcome === 'started') await deps.launch([jobId]);
        return outcome;
      } catch (err) {
        if (!isRuleRefusal(err)) throw err;
        refusal = err;
      }
      return recordSkip(deps, { scheduleId, nominalTime, workflowId, jobId }, refusal.message);
    },

    /** The job's status once it is final, or undefined when `waitMs` passes first (awaitFinalStatus). */
    async awaitFinal(jobId: string, waitMs: number, beat: () => void, signal?: AbortSignal): Promise<string | undefined> {
      return awaitFinalStatus({ store: jobStore(knex), gateway: deps.gateway }, jobId, waitMs, beat, signal);
    },

    /**
     * What a fire at `nominalTime` would start now, for a dry run: every rule and statement runs in a transaction
     * that is rolled back, so nothing is written and no workflow starts.
     */
    async preview(schedule: schedules.ScheduleView, nominalTime: Date): Promise<{ job: jobsRepo.JobView } | { reason: string }> {
      const ready = await jobs.readiness();
      try {
        const job = await inChangeTransaction(knex, { dryRun: true }, (trx) =>
          stageFire(deps, trx, schedule, nominalTime, scheduledJobId(schedule.schedule_id, nominalTime), ready),
        );
        return { job };
      } catch (err) {
        if (isRuleRefusal(err)) return { reason: err.message };
        if (err instanceof RateLimitedError) return { reason: `the fire would wait for the tenant's job bucket: ${err.message}` };
        throw err;
      }
    },

    /** The fire was cancelled (overlap policy `cancel_other`, or a cancel in Temporal): its job is cancelled too. */
    async cancelJob(jobId: string, reason: string): Promise<boolean> {
      return recordCancellation(deps, jobId, 'schedule', reason);
    },
  };
}

export type ScheduleFires = ReturnType<typeof createScheduleFires>;
