import { createHash } from 'node:crypto';
import {
  Client,
  isGrpcCancelledError,
  isGrpcDeadlineError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, type Priority, type SearchAttributePair } from '@temporalio/common';
import type { JobView } from '../db/jobs.repository';
import * as sa from '../../workflows/search-attributes';
import { completeJobUpdate, COMPLETION_CONFLICT, type CompletionReport, type ModelJobInput } from '../../workflows/definitions';
import { canonicalJson } from '../canonical-json';
import {
  fairnessKeyFor,
  workflowIdFor,
  WorkflowStartRefused,
  type ClosedUnfinished,
  type CompletionDelivery,
  type JobGateway,
  type Readiness,
} from '../domain/ports';
import type { Config } from '../config';
import { missingSearchAttributes, SearchAttributesMissingError } from './search-attributes';
import type { ServiceMetrics } from '../observability/metrics';

/**
 * The one place the service talks to Temporal about jobs: the workflow id, the start options (id reuse and
 * conflict policies, search attributes, memo), the bounded start, the completion update, readiness and UI links.
 */

/**
 * Temporal's priority of a job's workflow; its activities inherit it (the server merges the workflow's priority
 * into each activity task that sets none), so every task of the job carries the tenant's key and weight.
 */
export function jobPriority(job: JobView): Priority {
  return { priorityKey: job.priority, fairnessKey: fairnessKeyFor(job.client_id), fairnessWeight: job.tenant_limits?.fairness_weight ?? 1 };
}

/**
 * The search attributes a job workflow starts with. The job id earns no slot of its own: it is in the workflow
 * id (`WorkflowId = "job-<id>"`), and SQL visibility has only 10 Keyword slots per namespace (docs/temporal.md).
 */
export function jobSearchAttributes(job: JobView, status: string): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [
    { key: sa.MODEL_ID, value: job.model_id },
    { key: sa.MODEL_VERSION, value: job.model_version },
    { key: sa.JOB_TYPE, value: job.job_type },
    { key: sa.JOB_TRIGGER, value: job.trigger },
    { key: sa.JOB_STATUS, value: status },
  ];
  if (job.client_id) pairs.push({ key: sa.CLIENT_ID, value: job.client_id });
  if (job.domain_id) pairs.push({ key: sa.DOMAIN_ID, value: job.domain_id });
  if (job.service_id) pairs.push({ key: sa.SERVICE_ID, value: job.service_id });
  return pairs;
}

function summary(job: JobView): string {
  const where = job.client_id ? ` for ${[job.client_id, job.domain_id, job.service_id].filter(Boolean).join('/')}` : '';
  // A cascade names its parent (and the rest of its lineage in the memo): no search attribute slot is spent on it.
  const parent = job.source_job_id ? ` of job ${job.source_job_id}, depth ${job.cascade_depth}` : '';
  const rerun = job.rerun_of ? ` of job ${job.rerun_of}` : '';
  const fire = job.schedule_id ? ` ${job.schedule_id} at ${job.scheduled_at?.toISOString()}` : '';
  return `${job.job_type} of ${job.model_id}@${job.model_version}${where} (${job.trigger}${parent}${rerun}${fire})`;
}

// gRPC codes a workflow start can fail with that no retry fixes: a bad request (e.g. an undefined search
// attribute), a missing namespace, a refused permission, a failed precondition.
const INVALID_ARGUMENT = 3;
const PERMANENT_START_CODES = new Set([INVALID_ARGUMENT, 5, 7, 9]);
// gRPC status of a history call for a workflow Temporal does not have.
const NOT_FOUND = 5;
/**
 * The least time left before the deadline worth a long poll: the server keeps a second of the caller's deadline for
 * itself, and answers at once (with no event) when less is left, so polling to the deadline asked hundreds of times in
 * its last second.
 */
const LONG_POLL_TAIL_MS = 2000;

/** The server's own words: the SDK wraps them in its error ("Failed to start Workflow …") as the cause's details. */
function serverAnswer(err: unknown): string {
  let answer = (err as Error).message;
  for (let e = err as { details?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.details === 'string' && e.details) answer = e.details;
  }
  return answer;
}

function grpcCode(err: unknown): number | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'number') return e.code;
  }
  return undefined;
}

/**
 * The same report always carries the same update id, so a repeat after a 503 joins the first attempt
 * (Temporal deduplicates updates by id) instead of queueing another.
 */
export function completionUpdateId(report: CompletionReport): string {
  return `complete-${createHash('sha256').update(canonicalJson(report)).digest('hex').slice(0, 32)}`;
}

const JOB_WORKFLOW_PREFIX = workflowIdFor('');

/**
 * Why a start Temporal answered INVALID_ARGUMENT about a search attribute should wait rather than fail its job, if it
 * should. Every attribute listed: the frontend validates starts against a namespace cache that lags a registration
 * by seconds. Some missing: an operator has yet to add them (readiness says which, and how); the job is not at fault.
 */
async function searchAttributesUnsettled(
  client: Client,
  namespace: string,
  cloud: boolean | undefined,
  err: unknown,
): Promise<string | undefined> {
  if (!/search attribute/i.test(serverAnswer(err))) return undefined;
  try {
    const missing = await client.withDeadline(Date.now() + 3000, () => missingSearchAttributes(client.connection, namespace));
    if (missing.length === 0) return `Temporal's frontend has not yet seen the registered job search attributes; the start is retried`;
    return `${new SearchAttributesMissingError(namespace, missing, 'the start waits until they exist', cloud).message}`;
  } catch {
    return `Temporal refused the start over a search attribute and could not be asked which exist; the start is retried`;
  }
}

/** Whether the job search attributes exist on the namespace, asked within 3 s. */
async function checkReadiness(client: Client, namespace: string, cloud: boolean | undefined): Promise<Readiness> {
  try {
    const missing = await client.withDeadline(Date.now() + 3000, () => missingSearchAttributes(client.connection, namespace));
    if (missing.length === 0) return { ok: true };
    return {
      ok: false,
      reason: new SearchAttributesMissingError(
        namespace,
        missing,
        'the worker registers them at start where it may (TEMPORAL_REGISTER_SEARCH_ATTRIBUTES)',
        cloud,
      ).message,
    };
  } catch (err) {
    return { ok: false, reason: `Temporal is unavailable: ${(err as Error).message}` };
  }
}

/** The options of a job's workflow start: its id and policies, search attributes, memo and summary. */
function startOptions(job: JobView, taskQueue: string, input: ModelJobInput, priority: ReturnType<typeof jobPriority> | undefined) {
  return {
    workflowId: workflowIdFor(job.job_id),
    // One run per job, ever: a closed run is not started again, an open one is not joined or replaced.
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
    taskQueue,
    args: [input],
    ...(priority ? { priority } : {}),
    typedSearchAttributes: jobSearchAttributes(job, 'pending'),
    memo: {
      job_id: job.job_id,
      model: `${job.model_id}@${job.model_version}`,
      job_type: job.job_type,
      trigger: job.trigger,
      client_id: job.client_id,
      domain_id: job.domain_id,
      service_id: job.service_id,
      source_job_id: job.source_job_id,
      parent_job_id: job.source_job_id,
      parent_workflow_id: job.source_job_id ? workflowIdFor(job.source_job_id) : null,
      subscription_id: job.subscription_id,
      root_job_id: job.root_job_id,
      depth: job.cascade_depth,
      rerun_of: job.rerun_of,
      // What the task queue balances and orders its tasks by (docs/fairness.md); shown in the Web UI.
      ...(priority ? { fairness_key: priority.fairnessKey, fairness_weight: priority.fairnessWeight, priority: priority.priorityKey } : {}),
      schedule_id: job.schedule_id,
      scheduled_at: job.scheduled_at?.toISOString() ?? null,
    },
    staticSummary: summary(job),
    staticDetails: `Job ${job.job_id}. Report completion with POST /v2/models/${job.model_id}/versions/${job.model_version}/jobs/${job.job_id}/complete`,
  };
}

/** The visibility query of this task queue's job workflows that closed after `closedAfter` without their outcome. */
function closedUnfinishedQuery(taskQueue: string, closedAfter: Date): string {
  return [
    `WorkflowType = 'modelJobWorkflow'`,
    `TaskQueue = '${taskQueue.replace(/'/g, '')}'`,
    `ExecutionStatus IN ('Failed', 'Terminated', 'TimedOut')`,
    `${sa.JOB_STATUS.name} IN ('pending', 'running')`,
    `CloseTime > '${closedAfter.toISOString()}'`,
  ].join(' AND ');
}

/** The report through the workflow's `completeJob` update, waiting at most `waitSeconds` for its answer. */
async function completeVia(client: Client, jobId: string, report: CompletionReport, waitSeconds: number): Promise<CompletionDelivery> {
  const deadline = Date.now() + waitSeconds * 1000;
  const handle = client.workflow.getHandle(workflowIdFor(jobId));
  try {
    // One round trip: the workflow accepts and answers the report in the same task (its one-step outcome).
    const result = await client.withDeadline(deadline, () =>
      handle.executeUpdate(completeJobUpdate, { args: [report], updateId: completionUpdateId(report) }),
    );
    return { kind: 'answered', result };
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === COMPLETION_CONFLICT) {
      return { kind: 'conflict', message: err.cause.message };
    }
    if (err instanceof WorkflowNotFoundError) return { kind: 'closed' };
    return { kind: 'unanswered', cause: err };
  }
}

/** Jobs of this task queue whose workflow closed after `closedAfter` without recording its outcome. */
async function closedUnfinished(client: Client, taskQueue: string, closedAfter: Date): Promise<ClosedUnfinished[]> {
  // JobStatus is set to the final status only after the outcome step: a run that closed without it still says
  // pending or running. Only this service's task queue: other services may share the namespace.
  const query = closedUnfinishedQuery(taskQueue, closedAfter);
  const found: ClosedUnfinished[] = [];
  for await (const run of client.workflow.list({ query })) {
    if (run.workflowId.startsWith(JOB_WORKFLOW_PREFIX)) {
      found.push({ jobId: run.workflowId.slice(JOB_WORKFLOW_PREFIX.length), closedAs: run.status.name });
    }
  }
  return found;
}

/**
 * Temporal's own wait for the close of the job's workflow (the long poll `WorkflowHandle.result()` makes): the history
 * call, asked for the close event with `waitNewEvent`, answers as soon as the workflow has closed, or with no event
 * after the server's long-poll interval (about 20 s), to be asked again with its page token. The raw service call,
 * not `result()`: the caller needs only that it closed, not its result or failure decoded. The deadline and the
 * signal end the call in flight, so no long poll outlives the wait that asked for it.
 */
async function awaitClosed(
  client: Client,
  namespace: string,
  jobId: string,
  until: { deadline: number; signal?: AbortSignal },
  onPoll: () => void,
): Promise<'closed' | 'absent' | 'open'> {
  const { connection } = client;
  const request: temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryRequest = {
    namespace,
    execution: { workflowId: workflowIdFor(jobId) },
    waitNewEvent: true,
    historyEventFilterType: temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
    skipArchival: true,
  };
  const { signal } = until;
  for (;;) {
    if (signal?.aborted || until.deadline - Date.now() < LONG_POLL_TAIL_MS) return 'open';
    // A signal per call: the SDK adds an abort listener to the signal of each call and never removes it, so the
    // caller's signal, which spans many polls, carries only this one, removed after each.
    const call = new AbortController();
    const abort = () => call.abort();
    signal?.addEventListener('abort', abort, { once: true });
    let page: temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse;
    try {
      page = await connection.withAbortSignal(call.signal, () =>
        connection.withDeadline(until.deadline, () => connection.workflowService.getWorkflowExecutionHistory(request)),
      );
    } catch (err) {
      if (isGrpcDeadlineError(err) || (isGrpcCancelledError(err) && call.signal.aborted)) return 'open';
      if (grpcCode(err) === NOT_FOUND) return 'absent';
      throw err;
    } finally {
      signal?.removeEventListener('abort', abort);
    }
    if (page.history?.events?.length) return 'closed';
    request.nextPageToken = page.nextPageToken;
    onPoll();
  }
}

export function createJobGateway(options: {
  client: Client;
  taskQueue: string;
  namespace: string;
  uiUrl?: string;
  completionDeadlineSeconds: number;
  /** How long a good readiness answer is reused; a bad one is checked again after `retryMs`. */
  readinessTtlMs?: number;
  readinessRetryMs?: number;
  /** Temporal Cloud: the commands that add missing search attributes are `tcld`'s. */
  cloud?: boolean;
  /** Longest a start waits for Temporal to take the workflow (default 5 s); the reconciler starts the row later. */
  startWaitMs?: number;
  /** Counts the workflows this process starts, by job type and trigger. */
  metrics?: ServiceMetrics;
  /** `false` (JOB_FAIRNESS=off): workflows start with no priority, fairness key or weight (first come, first served). */
  fairness?: boolean;
}): JobGateway {
  const { client, taskQueue, namespace, uiUrl, completionDeadlineSeconds } = options;
  const fairness = options.fairness ?? true;
  const ttl = options.readinessTtlMs ?? 60_000;
  const retry = options.readinessRetryMs ?? 2_000;
  const startWaitMs = options.startWaitMs ?? 5_000;
  let cached: { at: number; value: Readiness } | undefined;
  let inflight: Promise<Readiness> | undefined;

  return {
    async launch(job) {
      const input: ModelJobInput = { jobId: job.job_id, completionDeadlineSeconds };
      const priority = fairness ? jobPriority(job) : undefined;
      try {
        // A Temporal that does not answer must not hold the caller: the reconciler starts the committed row later.
        await client.withDeadline(Date.now() + startWaitMs, () =>
          client.workflow.start('modelJobWorkflow', startOptions(job, taskQueue, input, priority)),
        );
        // Counted where the start happens (API, reconciler or cascade), once: a repeat is 'existing'.
        options.metrics?.jobStarted(job.job_type, job.trigger);
        return 'started';
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return 'existing';
        const code = grpcCode(err);
        if (code !== undefined && PERMANENT_START_CODES.has(code)) {
          cached = undefined;
          const unsettled = code === INVALID_ARGUMENT ? await searchAttributesUnsettled(client, namespace, options.cloud, err) : undefined;
          if (unsettled) throw new Error(unsettled, { cause: err });
          throw new WorkflowStartRefused(`Temporal refused to start the job's workflow: ${serverAnswer(err)}`, { cause: err });
        }
        throw err;
      }
    },
    complete: (jobId, report, waitSeconds) => completeVia(client, jobId, report, waitSeconds),
    async cancel(jobId) {
      try {
        await client.withDeadline(Date.now() + startWaitMs, () => client.workflow.getHandle(workflowIdFor(jobId)).cancel());
        return 'requested';
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return 'closed';
        throw err;
      }
    },
    async ping() {
      await client.withDeadline(Date.now() + 3000, () => client.workflowService.getSystemInfo({}));
    },
    async readiness() {
      const now = Date.now();
      if (cached && now - cached.at < (cached.value.ok ? ttl : retry)) return cached.value;
      inflight ??= checkReadiness(client, namespace, options.cloud).then((value) => {
        cached = { at: Date.now(), value };
        inflight = undefined;
        return value;
      });
      return inflight;
    },
    closedUnfinished: (closedAfter) => closedUnfinished(client, taskQueue, closedAfter),
    awaitClosed: (jobId, until, onPoll) => awaitClosed(client, namespace, jobId, until, onPoll),
    uiUrl(jobId) {
      if (!uiUrl) return null;
      return `${uiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowIdFor(jobId))}`;
    },
  };
}

/** The gateway as configured: task queue, namespace, UI link, completion deadline and fairness from the config. */
export function jobGatewayFor(client: Client, config: Config, metrics?: ServiceMetrics): JobGateway {
  return createJobGateway({
    metrics,
    client,
    taskQueue: config.temporal.taskQueue,
    namespace: config.temporal.namespace,
    uiUrl: config.temporal.uiUrl,
    completionDeadlineSeconds: config.jobs.completionDeadlineSeconds,
    fairness: config.jobs.fairness,
    cloud: config.temporal.cloud,
  });
}
