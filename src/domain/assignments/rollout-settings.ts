import { InvalidInputError } from '../../errors';
import { DEFAULT_ASSIGNMENT_KEY } from './assignment-keys';

/** The roles with a meaning (docs/progressive-delivery.md); any other role stays free-form, `null` is the primary. */
export const ROLLOUT_ROLES = ['canary', 'shadow'] as const;
export type RolloutRole = (typeof ROLLOUT_ROLES)[number];

export function isRolloutRole(role: string | null | undefined): role is RolloutRole {
  return role === 'canary' || role === 'shadow';
}

/** A canary's failure-rate limit: over `min_jobs` finished canary jobs, a failure rate above it rolls the canary back. */
export interface Guardrail {
  max_failure_rate: number;
  min_jobs: number;
}

/** The settings of a canary or shadow assignment, as stored (primary_key filled in). */
export interface RolloutSettings {
  /** The key of the domain assignment the candidate challenges (`default` unless named). */
  primary_key: string;
  /** Canary: the share (0–100) of the domain's services that run the candidate. */
  share?: number;
  guardrail?: Guardrail;
  /** Shadow: the absolute tolerance of every numeric output field, and per field (dotted path) overrides. */
  tolerance?: number;
  tolerances?: Record<string, number>;
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function number(value: unknown, field: string, min: number, max = Infinity): number {
  if (!isNumber(value) || value < min || value > max) {
    throw new InvalidInputError(
      `${field} must be a number${max === Infinity ? ` of at least ${min}` : ` from ${min} to ${max}`}; got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function guardrail(value: unknown): Guardrail {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidInputError('settings.guardrail must be an object {max_failure_rate, min_jobs}');
  }
  const g = value as Record<string, unknown>;
  const minJobs = number(g.min_jobs, 'settings.guardrail.min_jobs', 1);
  if (!Number.isInteger(minJobs)) throw new InvalidInputError('settings.guardrail.min_jobs must be an integer');
  return { max_failure_rate: number(g.max_failure_rate, 'settings.guardrail.max_failure_rate', 0, 1), min_jobs: minJobs };
}

function tolerances(value: unknown): Record<string, number> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidInputError('settings.tolerances must be an object of field → number');
  }
  return Object.fromEntries(Object.entries(value).map(([field, v]) => [field, number(v, `settings.tolerances.${field}`, 0)]));
}

/**
 * The settings of a canary or shadow revision checked field by field (a 400 names the field) and normalized; other
 * settings keys are kept as they came. `key` is the revision's own key, which may not be its primary's.
 */
export function rolloutSettings(
  role: RolloutRole,
  key: string,
  settings: Record<string, unknown>,
): RolloutSettings & Record<string, unknown> {
  const primaryKey = settings.primary_key ?? DEFAULT_ASSIGNMENT_KEY;
  if (typeof primaryKey !== 'string' || primaryKey.length === 0 || primaryKey.length > 200) {
    throw new InvalidInputError('settings.primary_key must be the key of the domain assignment the candidate challenges');
  }
  if (primaryKey === key) throw new InvalidInputError(`settings.primary_key must name another key than the ${role}'s own (${key})`);
  const out: RolloutSettings & Record<string, unknown> = { ...settings, primary_key: primaryKey };
  if (role === 'canary') {
    if (settings.share === undefined) throw new InvalidInputError('settings.share is required for a canary: a number from 0 to 100');
    out.share = number(settings.share, 'settings.share', 0, 100);
    if (settings.guardrail !== undefined) out.guardrail = guardrail(settings.guardrail);
  }
  if (settings.tolerance !== undefined) out.tolerance = number(settings.tolerance, 'settings.tolerance', 0);
  if (settings.tolerances !== undefined) out.tolerances = tolerances(settings.tolerances);
  return out;
}

/** The stored settings of a canary or shadow revision (validated when written). */
export function storedRolloutSettings(settings: Record<string, unknown>): RolloutSettings {
  return { primary_key: DEFAULT_ASSIGNMENT_KEY, ...settings };
}
