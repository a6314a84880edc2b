import type { Schemas } from '../../openapi/types';
import type { FeatureDefinition, FeatureRules, FeatureValues } from './features';
import { diffSchemas } from './schema-diff';

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

/** A feature contract as one JSON Schema over the features object: what init accepts under it. */
export function freezeAsSchema(definitions: FeatureDefinition[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(definitions.map((d) => [d.name, d.json_schema])),
    required: definitions.filter((d) => d.mandatory && !('default' in d.json_schema)).map((d) => d.name),
    additionalProperties: false,
  };
}

export type FeatureMismatch = Schemas['FeatureMismatch'];

/**
 * Where a domain's feature definitions and a model version's feature freeze disagree. Init validates against
 * the freeze, so a feature the domain defines and the freeze lacks fails every init that sends it with 422
 * "is not defined by the feature contract" (the trap of a version born with no freeze). Empty when they agree.
 */
export function featureContractMismatches(domain: FeatureDefinition[], frozen: FeatureDefinition[]): FeatureMismatch[] {
  const inFreeze = new Map(frozen.map((d) => [d.name, d]));
  const inDomain = new Map(domain.map((d) => [d.name, d]));
  const out: FeatureMismatch[] = [];
  for (const def of domain) {
    const f = inFreeze.get(def.name);
    if (!f) {
      out.push({
        feature: def.name,
        kind: 'missing_from_freeze',
        message: `feature "${def.name}" is defined by the domain but not by the version's feature freeze: an init that sends it fails with 422 "is not defined by the feature contract"`,
      });
      continue;
    }
    if (def.mandatory !== f.mandatory) {
      out.push({
        feature: def.name,
        kind: 'mandatory_differs',
        message: `feature "${def.name}" is ${def.mandatory ? 'mandatory' : 'optional'} in the domain but ${f.mandatory ? 'mandatory' : 'optional'} in the freeze`,
      });
    }
    const changes = diffSchemas(def.json_schema, f.json_schema);
    if (changes.length) {
      out.push({
        feature: def.name,
        kind: 'schema_differs',
        message: `feature "${def.name}" has another schema in the freeze than in the domain: ${changes.map((c) => c.reason.replace(/^\(value\): /, '')).join('; ')}`,
      });
    }
  }
  for (const f of frozen) {
    if (inDomain.has(f.name)) continue;
    const required = f.mandatory && !('default' in f.json_schema);
    out.push({
      feature: f.name,
      kind: 'missing_from_domain',
      message: `feature "${f.name}" is in the version's feature freeze but not defined by the domain${required ? ': it is mandatory without a default, so every init must send it' : ''}`,
    });
  }
  return out;
}
