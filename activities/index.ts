import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { ApplicationFailure, Context, log as activityLog } from '@temporalio/activity';
import { context as otelContext, propagation } from '@opentelemetry/api';
import type { FinishedJob, RecordedOutcome } from '../src/domain/jobs';
import { CascadeRejected, type FireInput } from '../src/domain/jobs';
import { JobMissing, type JobRuns } from '../src/domain/jobs';
import type { JobGateway } from '../src/domain/ports';
import type { ServiceMetrics } from '../src/observability/metrics';
import { launchInLinkedTrace } from '../src/observability/trace-links';
import { dispatch, stopTask, DispatchClients, DispatchResult } from './dispatch';
import { classifiedActivities } from './classified';
import type { JobTokens } from '../src/auth/job-tokens';
import type { CompletionReport, CompletionResult, ReportVia, StartClaim } from '../workflows/definitions';

export interface ActivityDeps {
  knex: Knex;
  /** The job steps (src/domain/jobs/run/job-runs.ts) the activities call, built once by the composition. */
  runs: JobRuns;
  gateway: JobGateway;
  clients: DispatchClients;
  log: Logger;
  publicBaseUrl: string;
  metrics?: ServiceMetrics;
  /** Signs the job-scoped completion token each dispatch carries; none: dispatches carry no token. */
  jobTokens?: JobTokens;
  /** How long a dispatched job waits for its report (JOB_COMPLETION_DEADLINE_SECONDS): the job token's lifetime. */
  completionDeadlineSeconds?: number;
}

/** A job token outlives the deadline by this much: a report sent just before it still arrives with a valid token. */
const TOKEN_GRACE_SECONDS = 60;
/** How often a dispatch tells Temporal it is alive (a sync `http` call may last minutes; the heartbeat time-out is 15 s). */
const HEARTBEAT_MS = 3000;

/** The W3C `traceparent` of the active span, for handlers to send back with their completion; none without tracing. */
function traceparent(): { traceparent?: string } {
  const carrier: Record<string, string> = {};
  propagation.inject(otelContext.active(), carrier);
  return carrier.traceparent ? { traceparent: carrier.traceparent } : {};
}

/** A job or model the workflow names but the database lacks fails the step for good. */
async function step<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof JobMissing) throw ApplicationFailure.create({ message: err.message, nonRetryable: true });
    throw err;
  }
}

/** One dispatch of the job to its handler, with its completion route, job token and trace; heartbeats while it runs. */
async function dispatchJob(deps: ActivityDeps, jobId: string): Promise<DispatchResult> {
  const { metrics, runs } = deps;
  // How long the task waited in the queue for a worker: what the task queue's fairness and priority act on.
  const waited = (Date.now() - Context.current().info.currentAttemptScheduledTimestampMs) / 1000;
  const order = await step(() => runs.dispatchOrder(jobId));
  metrics?.scheduleToStart.observe(order.labels, waited);
  metrics?.dispatchAttempts.inc({ handler: order.handler.type });
  const deadline = new Date(Date.now() + ((deps.completionDeadlineSeconds ?? 3600) + TOKEN_GRACE_SECONDS) * 1000);
  const token = await deps.jobTokens?.issue(jobId, deadline);
  const context = Context.current();
  const beat = setInterval(() => context.heartbeat(), HEARTBEAT_MS);
  try {
    const result = await dispatch(
      deps.clients,
      order.handler,
      {
        ...order.job,
        completion: {
          method: 'POST',
          path: order.completionPath,
          url: `${deps.publicBaseUrl.replace(/\/$/, '')}${order.completionPath}`,
          ...(token ? { token } : {}),
        },
        ...traceparent(),
      },
      order.http,
    );
    // A cancellation that came while RunTask ran found no task to stop: stop it here.
    if (result.kind === 'awaiting' && result.taskArn && (await runs.recordTask(jobId, result.taskArn))) {
      await stopTask(deps.clients.ecs, order.handler, result.taskArn, `job ${jobId} was cancelled while its task started`);
    }
    return result;
  } catch (err) {
    const retryable = !(err instanceof ApplicationFailure && err.nonRetryable);
    metrics?.dispatchFailures.inc({ handler: order.handler.type, retryable: String(retryable) });
    throw err;
  } finally {
    clearInterval(beat);
  }
}

/**
 * The job workflow's side effects, closing over the worker's dependencies. Their failures are classified
 * (activities/classified.ts): an outage is retried until it ends, a permanent refusal fails at once.
 */
export function createActivities(deps: ActivityDeps) {
  const { runs } = deps;
  const cascadeGateway = launchInLinkedTrace(deps.gateway);

  return classifiedActivities({
    async ping(name: string): Promise<string> {
      const { rows } = await deps.knex.raw<{ rows: { ok: number }[] }>('select 1 as ok');
      return `pong ${name} (db ${rows[0].ok === 1 ? 'ok' : 'unexpected'})`;
    },

    /** Claims the job for this workflow run (src/domain/jobs/run/job-runs.ts). */
    async startJob(jobId: string): Promise<StartClaim> {
      const runId = Context.current().info.workflowExecution?.runId;
      if (!runId) throw ApplicationFailure.create({ message: 'startJob runs only inside a job workflow', nonRetryable: true });
      return step(() => runs.claim(jobId, runId));
    },

    dispatchJob(jobId: string): Promise<DispatchResult> {
      return dispatchJob(deps, jobId);
    },

    /**
     * The outcome, its cascade jobs and the completion's answer in one transaction (a local activity of the workflow).
     * `finishJob` names only this activity: recorded histories name it, so it keeps its name.
     */
    finishJob(jobId: string, report: CompletionReport | null, via?: ReportVia): Promise<FinishedJob> {
      return step(() => runs.finish(jobId, report, via));
    },

    /** Starts the workflows of the cascade jobs an outcome created, in a trace linked to the source job's. */
    launchJobs(jobIds: string[]): Promise<void> {
      return runs.launchJobs(jobIds, cascadeGateway);
    },

    // Before the one-step outcome (workflows/model-job.workflow.ts ONE_STEP_OUTCOME): kept for runs started earlier.
    recordCompletion(jobId: string, report: CompletionReport | null): Promise<RecordedOutcome> {
      return step(() => runs.recordOutcome(jobId, report));
    },

    triggeredSubscriptions(jobId: string, triggerEvent: string): Promise<string[]> {
      return step(() => runs.subscriptionsToFire(jobId, triggerEvent));
    },

    async fireSubscription(input: FireInput): Promise<{ job_id: string }> {
      try {
        return await runs.fireSubscription(input, cascadeGateway);
      } catch (err) {
        if (err instanceof CascadeRejected) {
          activityLog.warn('cascade rejected', { ...input, reason: err.message });
          throw ApplicationFailure.create({ message: err.message, type: 'CascadeRejected', nonRetryable: true });
        }
        throw err;
      }
    },

    /** The workflow was cancelled: the record (src/domain/jobs/run/job-runs.ts `cancelled`) and StopTask of its ECS task. */
    async cancelJob(jobId: string): Promise<void> {
      const { stop } = await step(() => runs.cancelled(jobId));
      if (stop) await stopTask(deps.clients.ecs, stop.handler, stop.taskArn, stop.reason);
    },

    storeCompletionResult(jobId: string, result: CompletionResult): Promise<void> {
      return runs.storeResult(jobId, result);
    },
  });
}

export type Activities = ReturnType<typeof createActivities>;
