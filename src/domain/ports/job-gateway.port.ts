import { createHash } from 'node:crypto';
import type { JobView } from '../jobs';
import type { CompletionReport, CompletionResult } from '../../../workflows/definitions';

/**
 * What the application needs of the workflow engine for jobs, without the SDK: the rules import this, and
 * src/temporal/job-gateway.ts implements it on Temporal (start policies, search attributes, the update, UI links).
 */

/** A job's workflow id: the one place it is derived (the Temporal UI finds a job by it). */
export function workflowIdFor(jobId: string): string {
  return `job-${jobId}`;
}

/** The fairness key of jobs of no tenant (jobs of the global model routes): not a client id, which starts alphanumeric. */
export const PLATFORM_FAIRNESS_KEY = '~platform';
const MAX_FAIRNESS_KEY_BYTES = 64;

/**
 * The key Temporal's task-queue fairness balances dispatch by: the job's tenant (docs/fairness.md). Temporal takes at
 * most 64 bytes; a longer client id (they may have 128 characters) keeps its start and a hash of the whole, so two
 * tenants never share a key.
 */
export function fairnessKeyFor(clientId: string | null): string {
  if (clientId === null) return PLATFORM_FAIRNESS_KEY;
  if (Buffer.byteLength(clientId) <= MAX_FAIRNESS_KEY_BYTES) return clientId;
  return `${clientId.slice(0, 40)}~${createHash('sha256').update(clientId).digest('hex').slice(0, 16)}`;
}

/** A start that retrying cannot fix; the job is marked failed instead of waiting for the reconciler. */
export class WorkflowStartRefused extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'WorkflowStartRefused';
  }
}

export type CompletionDelivery =
  | { kind: 'answered'; result: CompletionResult }
  /** The workflow refused the report: it contradicts the recorded one, or the job timed out. */
  | { kind: 'conflict'; message: string }
  /** The workflow has closed: the job record holds the answer. */
  | { kind: 'closed' }
  /** No answer within the wait: the job's record says whether the report was taken (it is recorded with its answer). */
  | { kind: 'unanswered'; cause: unknown };

export type Readiness = { ok: true } | { ok: false; reason: string };

export interface JobGateway {
  /**
   * Starts the job's workflow exactly once: a second start, while the first run is open or after it closed,
   * is a no-op ('existing'). Throws WorkflowStartRefused for errors no retry fixes; others are transient.
   */
  launch(job: JobView): Promise<'started' | 'existing'>;
  /** Whether a job could start now: Temporal answers and the namespace defines the job search attributes. */
  readiness(): Promise<Readiness>;
  /** A round trip to the frontend, bounded by a gRPC deadline of 3 s (the client's own retries end with it). */
  ping(): Promise<void>;
  /** Delivers a completion report as the workflow's `completeJob` update, waiting at most `waitSeconds` for its answer. */
  complete(jobId: string, report: CompletionReport, waitSeconds: number): Promise<CompletionDelivery>;
  /**
   * Requests cancellation of the job's workflow (the workflow stops waiting, records nothing more and fires no
   * cascade). 'closed' when no open workflow exists (never started, or already closed).
   */
  cancel(jobId: string): Promise<'requested' | 'closed'>;
  /**
   * Waits for the job's workflow to close, on Temporal's own wait for it (no reads of the job meanwhile): 'closed' once
   * it has (now or before the call), 'absent' when Temporal has no workflow of the job (not started yet, e.g. a held
   * job), 'open' when `until.signal` aborts or `until.deadline` (ms since the epoch) comes first (the wait may end up
   * to 2 s before it: Temporal's long poll needs that much); either ends the call to Temporal. `onPoll` is called each
   * time Temporal answers that the workflow is still open (about every 20 s). Other errors of Temporal are thrown.
   */
  awaitClosed(jobId: string, until: { deadline: number; signal?: AbortSignal }, onPoll: () => void): Promise<'closed' | 'absent' | 'open'>;
  /** Link to the job in the Temporal Web UI, when TEMPORAL_UI_URL is configured. */
  uiUrl(jobId: string): string | null;
  /**
   * Jobs whose workflow closed after `closedAfter` without recording an outcome (failed, terminated or timed out while
   * its JobStatus still said pending or running), with how it closed.
   */
  closedUnfinished(closedAfter: Date): Promise<ClosedUnfinished[]>;
}

/** A job whose workflow closed without recording an outcome, and how it closed (Failed, Terminated, TimedOut). */
export interface ClosedUnfinished {
  jobId: string;
  closedAs: string;
}
