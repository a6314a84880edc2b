import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Outbox } from '../../webhooks';
import { findJobs, staleOrphans, TERMINAL_JOB_STATUSES, type JobView, type OrphanCursor } from '../../../db/jobs.repository';
import { markWorkflowClosed } from '../run/job-outcomes';
import { jobStarter, type StartOutcome } from './job-starter';
import { UserSchemaCompiler } from '../../common';
import type { ServiceMetrics } from '../../../observability/metrics';
import type { JobGateway } from '../../ports';
import { redeliverUnconfirmed } from '../run/outcome-redelivery';
import { every } from '../../../periodic';

const ORPHANS_PER_BATCH = 100;
const STARTS_IN_FLIGHT = 8;
/** How far back the first pass over closed workflows looks: the namespace's retention (docs/temporal.md). */
const CLOSED_LOOKBACK_MS = 72 * 3600 * 1000;
/** Later passes look back to the previous pass's start, less this, for visibility that lags the close. */
const CLOSED_OVERLAP_MS = 5 * 60 * 1000;

type ReconcilerDeps = {
  knex: Knex;
  gateway: JobGateway;
  log: Logger;
  metrics?: ServiceMetrics;
  everyMs?: number;
  graceSeconds?: number;
  redeliverEveryMs?: number;
  redeliverAfterSeconds?: number;
  closedEveryMs?: number;
  /** Where the events of a job failed for its closed workflow are written. */
  outbox: Outbox;
};

/** A pass over pending rows past the grace period: each one's workflow is started. */
function orphanPass(deps: ReconcilerDeps, start: (job: JobView) => Promise<StartOutcome>): () => Promise<void> {
  return async () => {
    try {
      // Rows pile up while Temporal is away (the API accepts jobs on a readiness answer up to a minute old): a pass
      // starts all of them, a batch at a time, rather than one batch every `everyMs`.
      for (let after: OrphanCursor | undefined; ;) {
        const batch = await staleOrphans(deps.knex, deps.graceSeconds ?? 30, ORPHANS_PER_BATCH, after);
        for (let i = 0; i < batch.length; i += STARTS_IN_FLIGHT) {
          await Promise.all(
            batch.slice(i, i + STARTS_IN_FLIGHT).map(async (job) => {
              if ((await start(job)) === 'started')
                deps.log.info({ jobId: job.job_id }, 'reconciler started the workflow of a pending job');
            }),
          );
        }
        if (batch.length < ORPHANS_PER_BATCH) return;
        after = batch[batch.length - 1];
      }
    } catch (err) {
      deps.log.warn({ err }, 'reconciler pass failed');
    }
  };
}

/**
 * A pass over workflows that closed without recording their outcome: such a workflow leaves its row pending or
 * running, holding its service and its tenant's running-job slot, so the row is failed, naming how it closed.
 */
function closedPass(deps: ReconcilerDeps, schemas: UserSchemaCompiler): () => Promise<void> {
  let closedAfter = new Date(Date.now() - CLOSED_LOOKBACK_MS);
  return async () => {
    try {
      const since = new Date();
      const closed = await deps.gateway.closedUnfinished(closedAfter);
      const how = new Map(closed.map((c) => [c.jobId, c.closedAs]));
      for (let i = 0; i < closed.length; i += ORPHANS_PER_BATCH) {
        const rows = await findJobs(
          deps.knex,
          closed.slice(i, i + ORPHANS_PER_BATCH).map((c) => c.jobId),
        );
        for (const row of rows.filter((r) => !TERMINAL_JOB_STATUSES.includes(r.status))) {
          await markWorkflowClosed({ ...deps, schemas }, row.job_id, how.get(row.job_id)!);
          deps.log.warn(
            { jobId: row.job_id, closedAs: how.get(row.job_id) },
            'reconciler failed a job whose workflow closed without its outcome',
          );
        }
      }
      closedAfter = new Date(since.getTime() - CLOSED_OVERLAP_MS);
    } catch (err) {
      deps.log.warn({ err }, 'reconciler pass over closed workflows failed');
    }
  };
}

/**
 * Keeps job rows and their workflows together where a crash parted them. Job rows are committed before their
 * workflow starts; if the API dies in between, the row stays `pending`: every such row's workflow is started
 * (starting is idempotent by workflow id). An outcome recorded from a completion update that Temporal lost (docs/temporal.md,
 * "Completions Temporal lost") is reported to the workflow again, every `redeliverEveryMs`.
 */
export function startReconciler(deps: ReconcilerDeps) {
  // The API's start: a row Temporal refuses for good is marked failed, a transient failure leaves it for the next
  // pass; neither stops the pass, so one bad row cannot keep every later one from starting.
  const schemas = new UserSchemaCompiler();
  const start = jobStarter({ ...deps, schemas });
  const pass = orphanPass(deps, start);
  const redeliver = async () => {
    try {
      await redeliverUnconfirmed({ ...deps, afterSeconds: deps.redeliverAfterSeconds });
    } catch (err) {
      deps.log.warn({ err }, 'reconciler pass over unconfirmed outcomes failed');
    }
  };
  const finishClosed = closedPass(deps, schemas);
  const stops = [
    every(deps.everyMs ?? 15000, 1000, pass),
    every(deps.redeliverEveryMs ?? 5000, deps.redeliverEveryMs ?? 5000, redeliver),
    every(deps.closedEveryMs ?? 60000, deps.closedEveryMs ?? 60000, finishClosed),
  ];
  return {
    /** One pass over pending rows now (tests). */
    runOnce: pass,
    /** One pass over unconfirmed outcomes now (tests). */
    redeliverOnce: redeliver,
    /** One pass over workflows that closed without their outcome now (tests). */
    finishClosedOnce: finishClosed,
    async stop() {
      await Promise.all(stops.map((stop) => stop()));
    },
  };
}
