import type { AssignmentRow } from '../../db/assignments.repository';

/**
 * The revisions of a key's current (or, once it left force, last) rollout, newest first: the newest revision in force
 * at some time and the older ones it continued (same role and candidate, replaced by an upsert, not promoted or rolled
 * back). Raising a canary's share is a new revision of the same rollout; a key used again after a rollback starts a
 * new one. Revisions written `archived` (they retired the key, never in force) are skipped. Empty for no revision.
 */
export function rolloutChain(revisions: AssignmentRow[]): AssignmentRow[] {
  const inForce = revisions.filter((r) => r.activated_at !== null);
  const [latest, ...older] = inForce;
  if (!latest) return [];
  const chain = [latest];
  for (const r of older) {
    const continued =
      !r.status_reason && r.role === latest.role && r.model_id === latest.model_id && r.model_version === latest.model_version;
    if (!continued) break;
    chain.push(r);
  }
  return chain;
}
