import { defineUpdate, defineQuery } from '@temporalio/workflow';
import type { CompletionResult, TriggeredEvent } from '../src/db/jobs.repository';

export type { CompletionResult, TriggeredEvent };

/** What a handler reports through the completion route (or an in-process implementation returns). */
export interface CompletionReport {
  status: 'success' | 'failure';
  output?: Record<string, unknown>;
  error?: Record<string, unknown>;
}

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
