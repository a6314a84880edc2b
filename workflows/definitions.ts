import { defineUpdate, defineQuery } from '@temporalio/workflow';

// The job workflow's contract with the service: its input, the completion update and its answer. Other layers
// import these types from here; this module imports nothing of theirs.

/** One subscription fired by a successful completion: the job it started, or why it could not. */
export interface TriggeredEvent {
  subscription_id: string;
  job_id?: string;
  error?: string;
}

export interface CompletionResult {
  job_id: string;
  model_id: string;
  model_version: string;
  status: 'success' | 'failure';
  triggered_events: TriggeredEvent[];
}

/** What a handler reports through the completion route (or an in-process implementation returns). */
export interface CompletionReport {
  status: 'success' | 'failure';
  output?: Record<string, unknown>;
  error?: Record<string, unknown>;
}

/**
 * How the report reached the workflow: the `completeJob` update (from the completion route), or the dispatch's own
 * result (an in-process handler). An update's report is not durable until the workflow task that takes it is
 * persisted, so its recorded outcome waits for Temporal's confirmation (docs/temporal.md, "Completions Temporal lost").
 */
export type ReportVia = 'update' | 'dispatch';

/** Whether this workflow run owns its job; a run that does not returns the recorded answer and does nothing. */
export type StartClaim = { owned: true } | { owned: false; result: CompletionResult };

export interface ModelJobInput {
  jobId: string;
  /** Seconds the workflow waits for the completion report after dispatch. */
  completionDeadlineSeconds: number;
}

/** Failure type of a completion whose status contradicts the one already recorded. */
export const COMPLETION_CONFLICT = 'CompletionConflict';

export const completeJobUpdate = defineUpdate<CompletionResult, [CompletionReport]>('completeJob');
export const jobStateQuery = defineQuery<{ phase: string; completion?: CompletionReport }>('jobState');
