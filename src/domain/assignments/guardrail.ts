import type { Knex } from 'knex';
import type { JobView } from '../../db/jobs.repository';
import type { AssignmentRow } from '../../db/assignments.repository';
import { findActive } from '../../db/assignments.repository';
import { archiveWithReason, revisionsOfKey, sideStats } from '../../db/rollouts.repository';
import { lockDomain } from '../../db/domains.repository';
import { inTransaction } from '../../db/transaction';
import { storedRolloutSettings } from './rollout-settings';
import { rolloutChain } from './rollout-chain';
import { sideReport } from './rollout-report';
import type { Outbox } from '../webhooks';

/** Who the assignment history names for an automatic rollback. */
export const GUARDRAIL_ACTOR = 'guardrail';

/**
 * Whether a finished job's outcome is judged by a guardrail: an inference job of a domain's canary revision (not a
 * cascade) whose rollout settings set one. `revision` is the job's assignment revision, as the outcome step read it.
 */
export function guardedCanary(
  job: Pick<JobView, 'job_type' | 'assignment_id' | 'domain_uuid' | 'trigger'>,
  revision: AssignmentRow | undefined,
) {
  if (!job.assignment_id || !job.domain_uuid || job.job_type !== 'inference' || job.trigger === 'cascade') return false;
  if (revision?.assignment_id !== job.assignment_id) return false;
  return revision.role === 'canary' && !revision.service_uuid && !!storedRolloutSettings(revision.settings).guardrail;
}

/**
 * After a canary job's outcome: when the canary's rollout has at least `guardrail.min_jobs` finished jobs and their
 * failure rate is above `guardrail.max_failure_rate`, archives the canary with the reason (its history shows it) and
 * writes an `assignment.rolled_back` event, in one transaction under the domain lock. True when it rolled back.
 * `revision`: the job's assignment revision as the outcome step read it (no statement for the jobs no guardrail judges).
 */
export async function enforceGuardrail(
  deps: { knex: Knex; outbox: Outbox },
  job: JobView,
  revision: AssignmentRow | undefined,
): Promise<boolean> {
  if (!revision || !guardedCanary(job, revision)) return false;
  return inTransaction(deps.knex, async (trx) => {
    const domain = await lockDomain(trx, revision.domain_uuid);
    if (!domain) return false;
    const scope = { domainUuid: domain.domain_uuid, domainId: domain.domain_id };
    const active = await findActive(trx, scope, revision.assignment_key);
    const chain = rolloutChain(await revisionsOfKey(trx, domain.domain_uuid, revision.assignment_key));
    // Only the rollout still in force is judged, by the guardrail its newest revision sets.
    if (!active || active.assignment_id !== chain[0]?.assignment_id || !chain.some((r) => r.assignment_id === revision.assignment_id))
      return false;
    const guardrail = storedRolloutSettings(active.settings).guardrail;
    if (!guardrail) return false;
    const canary = sideReport(await sideStats(trx, { domainUuid: domain.domain_uuid, assignmentIds: chain.map((r) => r.assignment_id) }));
    if (canary.finished < guardrail.min_jobs || (canary.failure_rate ?? 0) <= guardrail.max_failure_rate) return false;
    const reason =
      `guardrail: ${canary.failed} of ${canary.finished} canary jobs failed (failure rate ${canary.failure_rate}), ` +
      `above max_failure_rate ${guardrail.max_failure_rate} (min_jobs ${guardrail.min_jobs})`;
    const archived = (await archiveWithReason(trx, active.assignment_id, GUARDRAIL_ACTOR, reason))!;
    await deps.outbox(trx).assignmentRolledBack(archived, scope, { reason, automatic: true, canary });
    return true;
  });
}
