import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { confirmOutcome, deferOutcome, unconfirmedOutcomes, type UnconfirmedOutcome } from '../../../db/unconfirmed-outcomes.repository';
import type { CompletionReport } from '../../../../workflows/definitions';
import type { JobGateway } from '../../ports';

/**
 * Seconds a recorded outcome waits for Temporal's confirmation before it is delivered again: above the time the
 * completion route normally takes to see its update answered (well under a second; a few under a burst), so only
 * outcomes Temporal lost, or whose API died before confirming, are delivered twice.
 */
export const REDELIVER_AFTER_SECONDS = 10;
/** How long one delivery waits for the workflow's answer; one left unanswered is tried again next pass. */
const DELIVERY_WAIT_SECONDS = 10;
const IN_FLIGHT = 16;

/** The report an outcome was recorded from, as the completion route received it (less what the record normalised). */
function recordedReport(outcome: UnconfirmedOutcome): CompletionReport | undefined {
  if (outcome.status !== 'success' && outcome.status !== 'failure') return undefined;
  return {
    status: outcome.status,
    ...(outcome.output ? { output: outcome.output } : {}),
    ...(outcome.error ? { error: outcome.error } : {}),
  };
}

/**
 * One pass over the outcomes Temporal has not confirmed: each is reported again to its workflow as the
 * `completeJob` update. A workflow that lost the first update takes it as its report (its outcome step finds the
 * record final and returns the stored answer and cascade jobs), sets JobStatus, starts the cascades and closes; one
 * that had it answers it as a repeat, and a closed one is not found. Either answer confirms the outcome. While
 * Temporal does not answer at all, nothing is tried (or put back); a chunk of deliveries with no answer at all (the
 * workers away) ends the pass.
 */
export async function redeliverUnconfirmed(deps: { knex: Knex; gateway: JobGateway; log: Logger; afterSeconds?: number }): Promise<void> {
  const outcomes = await unconfirmedOutcomes(deps.knex, deps.afterSeconds ?? REDELIVER_AFTER_SECONDS, 200);
  if (outcomes.length === 0) return;
  await deps.gateway.ping();
  for (let i = 0; i < outcomes.length; i += IN_FLIGHT) {
    const answered = await Promise.all(outcomes.slice(i, i + IN_FLIGHT).map((outcome) => deliver(deps, outcome)));
    if (!answered.some(Boolean)) return;
  }
}

async function deliver(deps: { knex: Knex; gateway: JobGateway; log: Logger }, outcome: UnconfirmedOutcome): Promise<boolean> {
  const jobId = outcome.job_id;
  const report = recordedReport(outcome);
  if (report) {
    const delivery = await deps.gateway.complete(jobId, report, DELIVERY_WAIT_SECONDS);
    if (delivery.kind === 'unanswered') {
      deps.log.warn({ jobId, err: delivery.cause }, "the job's workflow did not answer its recorded outcome; it is tried again later");
      // Behind the others: a workflow that never answers (a stuck task) must not hold up the rest.
      await deferOutcome(deps.knex, jobId);
      return false;
    }
    if (delivery.kind === 'conflict') deps.log.warn({ jobId, reason: delivery.message }, "the job's workflow refused its recorded outcome");
    else deps.log.info({ jobId, answer: delivery.kind }, "reported the job's recorded outcome to its workflow again");
  }
  await confirmOutcome(deps.knex, jobId);
  return true;
}
