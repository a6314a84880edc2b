import { runRefusal } from '../common';
import type { Db } from '../../db/types';
import type { JobView, NewJob } from '../../db/jobs.repository';
import { activeChallengers, findAssignment } from '../../db/rollouts.repository';
import type { AssignmentRow } from '../../db/assignments.repository';
import { findVersion } from '../../db/models.repository';
import { deterministicUuid } from '../../ids';
import { isRolloutRole } from './rollout-settings';

/** Shadows run last: they only measure a candidate (src/domain/priorities.ts). */
const SHADOW_PRIORITY = 5;

/** Whether a job ran on an assignment revision that shadows or a guardrail may follow: an inference of an assignment, not a cascade or shadow. */
export function revisesJob(job: Pick<JobView, 'job_type' | 'assignment_id' | 'trigger'>): boolean {
  return job.job_type === 'inference' && !!job.assignment_id && job.trigger !== 'cascade' && job.trigger !== 'shadow';
}

/**
 * The shadow jobs a finished inference job of a primary creates: one per active shadow assignment challenging the
 * primary's key, with the same input, linked to it in lineage (source_job_id, root, depth + 1). Their ids derive from
 * (primary job, shadow revision), so the outcome step creates each once. A shadow of an inactive version is skipped.
 */
export async function planShadows(db: Db, job: JobView, revision?: AssignmentRow): Promise<NewJob[]> {
  if (!job.domain_uuid || !revisesJob(job)) return [];
  // The job's revision, when the caller has read it already (the outcome step reads it once for shadows and guardrail).
  const primary = revision ?? (await findAssignment(db, job.assignment_id!));
  if (!primary || primary.service_uuid || isRolloutRole(primary.role)) return [];
  const shadows: NewJob[] = [];
  for (const shadow of await activeChallengers(db, job.domain_uuid, primary.assignment_key, 'shadow')) {
    const version = await findVersion(db, shadow.model_id, shadow.model_version);
    if (!version || runRefusal(shadow.model_version, version.status, 'assigned')) continue;
    shadows.push({
      job_id: deterministicUuid('shadow', job.job_id, shadow.assignment_id),
      model_id: shadow.model_id,
      model_version: shadow.model_version,
      job_type: 'inference',
      trigger: 'shadow',
      assignment_id: shadow.assignment_id,
      client_id: job.client_id,
      domain_uuid: job.domain_uuid,
      service_uuid: job.service_uuid,
      source_job_id: job.job_id,
      cascade_depth: job.cascade_depth + 1,
      root_job_id: job.root_job_id,
      input: job.input ?? {},
      metadata: { assignment_key: shadow.assignment_key, role: 'shadow', shadow_of: job.job_id },
      priority: SHADOW_PRIORITY,
    });
  }
  return shadows;
}
