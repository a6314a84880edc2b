import type { FeatureDefinition, FeatureRules, FeatureValues } from './features';

export interface Incompatibility {
  feature: string;
  /** The stored value in provided_features; null when a mandatory feature is missing. */
  value: unknown;
  message: string;
}

/**
 * Whether a service's provided_features satisfy a model version's frozen feature contract:
 * every incompatible feature with its stored value, as blocking_services reports it. Empty when compatible.
 */
export function freezeIncompatibilities(rules: FeatureRules, frozen: FeatureDefinition[], provided: FeatureValues): Incompatibility[] {
  return rules.valueProblems(frozen, provided).map(({ feature, value, message }) => ({ feature, value, message }));
}
