import { inTransaction } from '../../../db/transaction';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import * as jobs from '../../../db/jobs.repository';
import * as models from '../../../db/models.repository';
import { setStatusFromJob, lockServiceByUuid } from '../../../db/services.repository';
import type { UserSchemaCompiler } from '../../common';
import { markUnconfirmed } from '../../../db/unconfirmed-outcomes.repository';
import type { CompletionReport, ReportVia } from '../../../../workflows/definitions';
import type { ServiceMetrics } from '../../../observability/metrics';
import { jobFinishedEvent, serviceStatusEvent, type NewEvent, type Outbox, type OutboxEvents } from '../../webhooks';
import { planCascades } from './cascades';
import { planShadows, revisesJob } from '../../assignments';
import { findAssignment } from '../../../db/rollouts.repository';
import type { AssignmentRow } from '../../../db/assignments.repository';
import { shadowJobIds } from '../../../db/rollouts.repository';
import { subscriptionStore } from '../../../db/subscriptions.repository';
import { storableReport } from './storable-outcomes';
import { reportedArtifacts } from '../../models';

/** What recording an outcome needs: `outbox` takes the events it announces, in its transaction. */
export interface RecordDeps {
  knex: Knex;
  schemas: UserSchemaCompiler;
  log: Logger;
  outbox: Outbox;
  metrics?: ServiceMetrics;
}

export interface RecordedOutcome {
  status: jobs.JobStatus;
  /** The subscriptions' trigger to fire, or null when nothing fires (failures, time-outs). */
  triggerEvent: 'inference_complete' | 'training_complete' | null;
  base: Omit<jobs.CompletionResult, 'triggered_events'>;
}

/** A job whose workflow start Temporal refused for good: failed, visibly, with the reason `start_refused`. */
export function markStartRefused(deps: RecordDeps, jobId: string, refusal: Error): Promise<RecordedOutcome> {
  const error = { message: refusal.message, reason: 'start_refused' };
  return recordOutcome(deps, jobId, { status: 'failure', error });
}

/**
 * A job whose workflow closed without recording an outcome (its outcome step failed for good before it could fall
 * back, an operator terminated it): failed, with the reason `workflow_closed`, so its service, version and tenant's
 * held jobs move on. A job that is final already is left as it is.
 */
export function markWorkflowClosed(deps: RecordDeps, jobId: string, closedAs: string): Promise<RecordedOutcome> {
  const error = {
    message: `the job's workflow closed (${closedAs.toLowerCase()}) without recording an outcome`,
    reason: 'workflow_closed',
  };
  return recordOutcome(deps, jobId, { status: 'failure', error });
}

/**
 * Records a job's outcome and its effects in one transaction: the job row, the service's status
 * (inference of a service), the version's status (training). `report` null means the deadline passed.
 * Idempotent: an activity retry after a commit finds the job finished and changes nothing (and counts nothing).
 */
export async function recordOutcome(deps: RecordDeps, jobId: string, report: CompletionReport | null): Promise<RecordedOutcome> {
  const { knex, metrics } = deps;
  // The last boundary before Postgres: an outcome it cannot hold fails the job, naming why, instead of the step.
  report = report && storableReport(report);
  let finished: { jobType: string; status: string; createdAt: Date } | undefined;
  const outcome = await inTransaction(knex, async (trx): Promise<RecordedOutcome> => {
    finished = undefined; // a deadlock victim's attempt is re-run from here
    const job = await jobs.findJob(trx, jobId);
    if (!job) throw new Error(`job ${jobId} does not exist`);
    const { status, output, error, base } = outcomeOf(job, report);

    await lockDependents(trx, job);

    const changed = await jobs.writeFinalStatus(trx, jobId, status, output, error);
    if (!changed) {
      const current = (await jobs.findJob(trx, jobId))!;
      return { status: current.status, triggerEvent: triggerFor(current.job_type, current.status), base };
    }

    finished = { jobType: job.job_type, status, createdAt: job.created_at };
    await settleFinished(trx, deps, { ...job, ...changed }, report);
    return { status, triggerEvent: triggerFor(job.job_type, status), base };
  });
  // Counted after the commit, once per job: only the call that moved the job to its final state gets here.
  if (finished) metrics?.jobFinished(finished.jobType, finished.status, Math.max(0, (Date.now() - finished.createdAt.getTime()) / 1000));
  return outcome;
}

/** A finished job as its workflow's one outcome step leaves it: the completion's answer, and the cascade jobs to start. */
export interface FinishedJob {
  status: jobs.JobStatus;
  result: jobs.CompletionResult;
  /** Cascade jobs this outcome created (committed, `pending`), for the workflow to start. */
  launch: string[];
}

/**
 * The job workflow's one step after the report (a local activity, docs/temporal.md): records the outcome and its
 * effects like `recordOutcome`, creates the cascade jobs a success fires (`planCascades`) and stores the
 * completion's answer, all in one transaction. `report` null means the deadline passed. Idempotent: a re-run after
 * the commit finds the job final and returns the stored answer with the same cascade jobs (starting them is too).
 * A report that came by the completion update is marked unconfirmed until Temporal answers that update.
 */
export async function commitOutcome(
  deps: OutcomeDeps,
  jobId: string,
  report: CompletionReport | null,
  via: ReportVia = 'dispatch',
): Promise<FinishedJob> {
  return (await commitOutcomeOf(deps, jobId, report, via)).finished;
}

type OutcomeDeps = RecordDeps & { maxCascadeDepth: number };

/** `commitOutcome` with what it read on the way: the job as it was, and its assignment revision (the guardrail's input). */
export interface CommittedOutcome {
  finished: FinishedJob;
  job: jobs.JobView;
  /** The job's assignment revision, read once for its shadows and the canary guardrail; none when `revisesJob` says no. */
  revision?: AssignmentRow;
}

export async function commitOutcomeOf(
  deps: OutcomeDeps,
  jobId: string,
  report: CompletionReport | null,
  via: ReportVia = 'dispatch',
): Promise<CommittedOutcome> {
  // The last boundary before Postgres: an outcome it cannot hold fails the job, naming why, instead of the step.
  report = report && storableReport(report);
  let count: (() => void) | undefined;
  const committed = await inTransaction(deps.knex, async (trx): Promise<CommittedOutcome> => {
    count = undefined; // a deadlock victim's attempt is re-run from here
    // The model's contracts with the job: the output check needs no statement of its own.
    const found = await jobs.findJobWithContracts(trx, jobId);
    if (!found) throw new Error(`job ${jobId} does not exist`);
    const { handler_contracts: contracts, ...job } = found;
    const { status, output, error, base } = outcomeOf(job, report);
    await lockDependents(trx, job);
    const revision = revisesJob(job) ? await findAssignment(trx, job.assignment_id!) : undefined;

    // A shadow fires no subscription: it changes nothing but its own row (docs/progressive-delivery.md).
    const trigger = job.trigger === 'shadow' ? null : triggerFor(job.job_type, status);
    const plan = trigger
      ? await planCascades(subscriptionStore(trx), deps, job, trigger, report?.output ?? {})
      : { triggered: [], jobs: [] };
    const result: jobs.CompletionResult = { ...base, triggered_events: plan.triggered };
    const changed = await jobs.writeFinalStatus(trx, jobId, status, output, error, result);
    if (!changed) {
      const current = (await jobs.findJob(trx, jobId))!;
      const recorded = recordedAnswer(current);
      const cascades = recorded.triggered_events.flatMap((e) => (e.job_id ? [e.job_id] : []));
      const launch = [...cascades, ...(await shadowJobIds(trx, jobId))];
      return { finished: { status: current.status, result: recorded, launch }, job, revision };
    }

    await settleFinished(trx, deps, { ...job, ...changed }, report, contracts);
    const shadows = await planShadows(trx, job, revision);
    await jobs.insertCascadeJobs(trx, [...plan.jobs, ...shadows]);
    // The update that brought this report lives in the server's memory until this workflow task is persisted; a
    // server lost meanwhile loses it while this commit stands, so the reconciler delivers it again unless confirmed.
    if (report && via === 'update') await markUnconfirmed(trx, jobId);
    count = () => {
      deps.metrics?.jobFinished(job.job_type, status, Math.max(0, (Date.now() - job.created_at.getTime()) / 1000));
      deps.metrics?.cascadeFinished(plan.jobs.length, plan.triggered.length - plan.jobs.length);
    };
    return { finished: { status, result, launch: [...plan.jobs, ...shadows].map((j) => j.job_id) }, job, revision };
  });
  // Counted after the commit, once per job: only the call that moved the job to its final state gets here.
  count?.();
  return committed;
}

/** The completion's answer as the job's record holds it (built from its status where none was stored). */
export function recordedAnswer(job: jobs.JobView): jobs.CompletionResult {
  return (
    job.completion_result ?? {
      job_id: job.job_id,
      model_id: job.model_id,
      model_version: job.model_version,
      status: job.status === 'success' ? 'success' : 'failure',
      triggered_events: [],
    }
  );
}

/** The job's final status, output and error for a report (null: the deadline passed), and the answer's fixed part. */
function outcomeOf(job: jobs.JobView, report: CompletionReport | null) {
  const status: jobs.JobStatus = report ? report.status : 'timed_out';
  const output = report?.output ?? (status === 'success' ? {} : undefined);
  const error =
    status === 'success'
      ? undefined
      : report
        ? report.error
        : { message: 'no completion was reported before the deadline', reason: 'timed_out' };
  const base = {
    job_id: job.job_id,
    model_id: job.model_id,
    model_version: job.model_version,
    status: report?.status ?? ('failure' as const),
  };
  return { status, output, error, base };
}

/**
 * What follows a job's move to its final state, in its transaction: the `job.finished` event, the output check, the
 * service or version, and the service's event; the events in one statement. `contracts`: the model's handler
 * contracts when the caller read them with the job (undefined: read here, for a success).
 */
async function settleFinished(
  trx: Knex.Transaction,
  deps: Pick<RecordDeps, 'schemas' | 'log' | 'outbox'>,
  job: jobs.JobView,
  report: CompletionReport | null,
  contracts?: models.HandlerContracts | null,
): Promise<void> {
  // A shadow job announces nothing and moves no service (docs/progressive-delivery.md).
  if (job.trigger === 'shadow') return;
  const events = [jobFinishedEvent(job)];
  if (job.status === 'success') {
    const outputSchema = (contracts === undefined ? await models.findHandlerContracts(trx, job.model_id) : contracts)?.[job.job_type]
      ?.output_schema;
    const problem = outputSchema === undefined ? undefined : outputCheck(deps.schemas, outputSchema, report?.output ?? {});
    if (problem)
      deps.log.warn(
        { jobId: job.job_id, modelId: job.model_id, problem },
        'job output does not match the output_schema of its handler contract',
      );
  }
  await settleDependents(trx, deps.outbox(trx), job, job.status === 'success', deps.log, events);
}

/**
 * The output_schema's verdict on an output; a schema the validator cannot run (it throws, e.g. RangeError on a
 * self-referencing `$dynamicRef`) is a verdict too, so the step that records the outcome cannot fail on it.
 */
export function outputCheck(schemas: UserSchemaCompiler, schema: unknown, output: unknown): string | undefined {
  try {
    return schemas.validate(schema, output);
  } catch (err) {
    return `the output_schema could not be evaluated (${err instanceof Error ? `${err.name}: ${err.message}` : String(err)})`;
  }
}

/**
 * Records a job's cancellation and its effects in one transaction, like an outcome: the job row (`cancelled`, by
 * whom, why), the `job.cancelled` event, and the service (an inference of a service, when no newer job of the
 * service exists) or the version (a training) moved to `failed`: the work they waited for will not arrive.
 * False when the job had already reached a final status; nothing changes then.
 */
export async function recordCancellation(
  deps: { knex: Knex; outbox: Outbox },
  jobId: string,
  by: string,
  reason: string | null,
): Promise<boolean> {
  return inTransaction(deps.knex, async (trx) => {
    const outbox = deps.outbox(trx);
    const job = await jobs.findJob(trx, jobId);
    if (!job) throw new Error(`job ${jobId} does not exist`);
    await lockDependents(trx, job);
    if (!(await jobs.cancelJob(trx, jobId, by, reason))) return false;
    if (job.trigger === 'shadow') return true; // a shadow announces nothing and moves no service
    await outbox.jobFinished(jobId); // job.cancelled
    await settleDependents(trx, outbox, job, false);
    return true;
  });
}

/**
 * Lock order of every job start and end: the service (or version) row first, then model_jobs. Updating the job row
 * first deadlocked with an init of the same Idempotency-Key, whose unique check waits on this job row.
 */
async function lockDependents(trx: Knex.Transaction, job: jobs.JobView): Promise<void> {
  if (job.job_type === 'inference' && job.service_uuid) await lockServiceByUuid(trx, job.service_uuid);
  if (job.job_type === 'training') await models.lockVersion(trx, job.model_id, job.model_version);
}

/**
 * Moves what waited for a finished job: its service (an inference of a service, unless a newer inference job of the
 * service exists: its outcome governs) becomes available or failed; its version (a training) active or failed.
 * A cascade job carries its source's service for lineage only: the service's own job already moved it (one event).
 * `before`: the caller's events, recorded ahead of the dependents' own, in one statement with the service's.
 */
async function settleDependents(
  trx: Knex.Transaction,
  outbox: OutboxEvents,
  job: jobs.JobView,
  succeeded: boolean,
  log?: Logger,
  before: (NewEvent | undefined)[] = [],
): Promise<void> {
  const events = [...before];
  if (job.job_type === 'inference' && job.service_uuid && job.trigger !== 'cascade') {
    const service = await setStatusFromJob(trx, job.service_uuid, job.job_id, succeeded ? 'available' : 'failed');
    if (service) events.push(serviceStatusEvent(service, { client_id: job.client_id!, domain_id: job.domain_id! }, job.model_id));
  }
  await outbox.recordAll(events.filter((e) => e !== undefined));
  if (job.job_type === 'training') {
    const version = await models.findVersion(trx, job.model_id, job.model_version);
    if (version?.status === 'training') {
      if (succeeded) await activateTrained(trx, job, log);
      else await models.setVersionStatus(trx, job.model_id, job.model_version, 'failed');
      await outbox.versionStatusChanged(job.model_id, job.model_version);
    }
  }
}

/**
 * A successful training makes its version active with the job as its source (lineage) and, when the output reports
 * `artifacts` in the documented shape, those as the version's artifacts, in the outcome's transaction. Output that
 * does not parse attaches nothing (the version keeps the artifacts it was created with) and is logged, like an
 * output that misses its contract: the job did succeed.
 */
async function activateTrained(trx: Knex.Transaction, job: jobs.JobView, log: Logger | undefined): Promise<void> {
  const reported = reportedArtifacts(job.output);
  if ('problem' in reported)
    log?.warn(
      { jobId: job.job_id, modelId: job.model_id, version: job.model_version, problem: reported.problem },
      'training output artifacts are not in the documented shape; none attached',
    );
  await models.activateTrainedVersion(
    trx,
    job.model_id,
    job.model_version,
    job.job_id,
    'artifacts' in reported ? reported.artifacts : undefined,
  );
}

function triggerFor(jobType: jobs.JobType, status: jobs.JobStatus): RecordedOutcome['triggerEvent'] {
  if (status !== 'success') return null;
  return jobType === 'inference' ? 'inference_complete' : 'training_complete';
}
