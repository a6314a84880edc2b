import type { VersionStatus } from '../db/models.repository';

/**
 * Transitions the set-status route allows. `training` is entered only by starting a training job,
 * and left by its outcome (or by an operator marking a stuck training active or failed).
 */
export const VERSION_TRANSITIONS: Record<VersionStatus, readonly VersionStatus[]> = {
  pending: ['active', 'failed'],
  training: ['active', 'failed'],
  active: ['failed'],
  failed: ['pending', 'active'],
};

/** Versions a training job may start from. */
export const TRAINABLE_STATUSES: readonly VersionStatus[] = ['pending', 'failed'];

export function canMoveVersion(from: VersionStatus, to: VersionStatus): boolean {
  return from === to || VERSION_TRANSITIONS[from].includes(to);
}
