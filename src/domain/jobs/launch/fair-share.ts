import type { ActiveJobCounts } from '../../../db/job-shares.repository';
import type { TenantLimits } from '../../common';

/**
 * The tenant's fair share of the workers (docs/fairness.md, "Jobs: fair shares"): of `capacity` started, unfinished
 * jobs, the part its fairness weight gives it beside the other busy tenants' weights, at least 1.
 */
export function fairShare(capacity: number, weight: number, counts: Pick<ActiveJobCounts, 'otherWeights'>): number {
  return Math.max(1, Math.floor((capacity * weight) / (weight + counts.otherWeights)));
}

/**
 * How many more of the tenant's jobs may start now: under its explicit cap (max_running_jobs), and either within
 * its fair share or while the workers have room (`total` under `capacity`: work-conserving, a lone tenant may use
 * them all). `capacity` 0 turns shares off. Answers the room and, when there is none, why.
 */
export function roomFor(
  clientId: string,
  limits: TenantLimits,
  capacity: number,
  counts: ActiveJobCounts,
): { room: number; reason?: string } {
  const cap = limits.max_running_jobs;
  let room = cap === null ? Number.MAX_SAFE_INTEGER : cap - counts.mine;
  if (room <= 0) {
    return {
      room: 0,
      reason: `tenant ${clientId} is at its max_running_jobs (${cap}); the job starts when one of the tenant's jobs finishes`,
    };
  }
  if (capacity <= 0) return { room };
  const share = fairShare(capacity, limits.fairness_weight, counts);
  const shareRoom = Math.max(share - counts.mine, capacity - counts.total);
  room = Math.min(room, shareRoom);
  if (room <= 0) {
    return {
      room: 0,
      reason:
        `tenant ${clientId} has its fair share of the workers (${counts.mine} of ${share} running, ${counts.otherTenants} other ` +
        `tenant(s) busy, capacity ${capacity}); the job starts in its tenant's turn when the workers have room`,
    };
  }
  return { room };
}
