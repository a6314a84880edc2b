import type { VersionStatus } from '../../db/models.repository';

/**
 * Transitions the set-status route allows. `training` is entered only by starting a training job,
 * and left by its outcome (or by an operator marking a stuck training active or failed). `deprecated` and `archived`
 * retire a version: the first keeps it running where it is assigned, the second runs it nowhere.
 */
export const VERSION_TRANSITIONS: Record<VersionStatus, readonly VersionStatus[]> = {
  pending: ['active', 'failed'],
  training: ['active', 'failed'],
  active: ['failed', 'deprecated', 'archived'],
  failed: ['pending', 'active', 'archived'],
  deprecated: ['active', 'archived'],
  archived: ['deprecated', 'active'],
};

/** Versions a training job may start from. */
export const TRAINABLE_STATUSES: readonly VersionStatus[] = ['pending', 'failed'];

export function canMoveVersion(from: VersionStatus, to: VersionStatus): boolean {
  return from === to || VERSION_TRANSITIONS[from].includes(to);
}

/**
 * Why a version cannot run a new inference job here, or undefined when it can. `assigned`: through an assignment that
 * already binds it (a service's job, a canary or shadow, a re-run of such a job); `direct`: anything else.
 */
export function runRefusal(name: string, status: VersionStatus, where: 'assigned' | 'direct'): string | undefined {
  if (status === 'active') return undefined;
  if (status === 'deprecated') {
    return where === 'assigned' ? undefined : `version ${name} is deprecated: it runs only where it is already assigned`;
  }
  return `version ${name} is ${status}; inference needs an active version${status === 'archived' ? ' (archived versions run nowhere)' : ''}`;
}

/** Why a version cannot be newly assigned (or aliased), or undefined. */
export function assignRefusal(name: string, status: VersionStatus, act: 'assigned' | 'aliased' = 'assigned'): string | undefined {
  if (status === 'active') return undefined;
  if (status === 'deprecated' || status === 'archived')
    return `model version ${name} is ${status}; ${status} versions cannot be newly ${act}`;
  return `model version ${name} is ${status}; only active versions can be ${act}`;
}
