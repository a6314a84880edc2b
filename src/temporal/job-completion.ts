import { createHash } from 'node:crypto';
import { Client, WorkflowUpdateFailedError, WorkflowUpdateStage, WorkflowUpdateHandle } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { completeJobUpdate, COMPLETION_CONFLICT, CompletionReport, CompletionResult } from '../../workflows/definitions';
import { canonicalJson } from '../domain/json-schemas';
import { workflowIdFor } from './job-launcher';

export type CompletionDelivery =
  | { kind: 'answered'; result: CompletionResult }
  /** The workflow refused the report: it contradicts the recorded one, or the job timed out. */
  | { kind: 'conflict'; message: string }
  /** The workflow has closed: the job record holds the answer. */
  | { kind: 'closed' }
  /** No answer within the wait. `recorded`: the workflow accepted the report (it is in its history) and is still finishing. */
  | { kind: 'unanswered'; recorded: boolean; cause: unknown };

/**
 * The same report always carries the same update id, so a repeat after a 503 joins the first attempt
 * (Temporal deduplicates updates by id) instead of queueing another.
 */
export function completionUpdateId(report: CompletionReport): string {
  return `complete-${createHash('sha256').update(canonicalJson(report)).digest('hex').slice(0, 32)}`;
}

/**
 * Delivers a completion report to the job's workflow as the `completeJob` update and waits at most `waitSeconds`
 * in all: first for the workflow to accept it, then for its answer. Never waits longer, whatever Temporal does.
 */
export async function deliverCompletion(client: Client, jobId: string, report: CompletionReport, waitSeconds: number): Promise<CompletionDelivery> {
  const deadline = Date.now() + waitSeconds * 1000;
  const handle = client.workflow.getHandle(workflowIdFor(jobId));
  let accepted: WorkflowUpdateHandle<CompletionResult> | undefined;
  try {
    accepted = await client.withDeadline(deadline, () =>
      handle.startUpdate(completeJobUpdate, { args: [report], updateId: completionUpdateId(report), waitForStage: WorkflowUpdateStage.ACCEPTED }));
    return { kind: 'answered', result: await client.withDeadline(deadline, () => accepted!.result()) };
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === COMPLETION_CONFLICT) {
      return { kind: 'conflict', message: err.cause.message };
    }
    if (err instanceof WorkflowNotFoundError) return { kind: 'closed' };
    return { kind: 'unanswered', recorded: accepted !== undefined, cause: err };
  }
}
