import { UserSchemaCompiler } from './json-schemas';
import { UnprocessableError } from '../../errors';

import type { FeatureDefinition, FeatureValues } from '../../shapes';

export type { FeatureDefinition, FeatureValues };

export interface FeatureProblem {
  feature: string;
  value: unknown;
  message: string;
}

/** Feature names: a letter or underscore, then letters, digits, `_`, `.` or `-`; at most 128 characters. */
export const FEATURE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;

/** Keywords a feature value schema may use: the spec's value keywords plus harmless annotations. */
export const ALLOWED_FEATURE_KEYWORDS = new Set([
  'type',
  'enum',
  'minimum',
  'maximum',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'oneOf',
  'default',
  'description',
  'title',
  'const',
  '$schema',
]);
const SUBSCHEMA_KEYWORDS = new Set(['items']);
const SUBSCHEMA_LIST_KEYWORDS = new Set(['prefixItems', 'oneOf']);

function disallowedKeywords(schema: unknown, path: string): string[] {
  if (typeof schema === 'boolean' || !schema || typeof schema !== 'object' || Array.isArray(schema)) return [];
  const found: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (!ALLOWED_FEATURE_KEYWORDS.has(key)) found.push(`${path}${key}`);
    else if (SUBSCHEMA_KEYWORDS.has(key)) found.push(...disallowedKeywords(value, `${path}${key}.`));
    else if (SUBSCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) {
      value.forEach((sub, i) => found.push(...disallowedKeywords(sub, `${path}${key}[${i}].`)));
    }
  }
  return found;
}

/** Pure rules over feature definitions and values, shared by domains, model versions, services and assignments. */
export class FeatureRules {
  constructor(private readonly schemas: UserSchemaCompiler) {}

  /** Problems with a set of definitions, one line per offending feature; empty when the set is valid. */
  definitionProblems(definitions: FeatureDefinition[]): string[] {
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const def of definitions) {
      const name = def.name;
      if (!FEATURE_NAME_PATTERN.test(name)) {
        problems.push(`feature "${name}": name must match ${FEATURE_NAME_PATTERN.source}`);
        continue;
      }
      if (seen.has(name)) problems.push(`feature "${name}": name is defined more than once`);
      seen.add(name);
      const extra = disallowedKeywords(def.json_schema, '');
      if (extra.length) {
        problems.push(`feature "${name}": json_schema uses keywords not allowed for feature values: ${extra.join(', ')}`);
        continue;
      }
      const invalid = this.schemas.check(def.json_schema);
      if (invalid) {
        problems.push(`feature "${name}": json_schema ${invalid.message}`);
        continue;
      }
      if ('default' in def.json_schema) {
        const bad = this.schemas.validate(def.json_schema, def.json_schema.default);
        if (bad) problems.push(`feature "${name}": default does not satisfy its own schema: ${bad}`);
      }
    }
    return problems;
  }

  /** Throws the spec's "invalid feature definitions" 422 when any definition is invalid. */
  assertValidDefinitions(definitions: FeatureDefinition[]): void {
    const problems = this.definitionProblems(definitions);
    if (problems.length) throw new UnprocessableError(`invalid feature definitions: ${problems.join('; ')}`);
  }

  /**
   * Checks provided values against definitions: unknown features, values failing their schema, and
   * mandatory features that are missing and have no default.
   */
  valueProblems(definitions: FeatureDefinition[], values: FeatureValues): FeatureProblem[] {
    const byName = new Map(definitions.map((d) => [d.name, d]));
    const problems: FeatureProblem[] = [];
    for (const [name, value] of Object.entries(values)) {
      const def = byName.get(name);
      if (!def) {
        problems.push({ feature: name, value, message: 'is not defined by the feature contract' });
        continue;
      }
      const bad = this.schemas.validate(def.json_schema, value);
      if (bad) problems.push({ feature: name, value, message: bad });
    }
    for (const def of definitions) {
      if (def.mandatory && !(def.name in values) && !('default' in def.json_schema)) {
        problems.push({ feature: def.name, value: null, message: 'is mandatory and has no default' });
      }
    }
    return problems;
  }

  /** Provided values plus the defaults of every omitted feature that has one. */
  resolve(definitions: FeatureDefinition[], values: FeatureValues): FeatureValues {
    const resolved: FeatureValues = {};
    for (const def of definitions) {
      if (def.name in values) resolved[def.name] = values[def.name];
      else if ('default' in def.json_schema) resolved[def.name] = structuredClone(def.json_schema.default);
    }
    return resolved;
  }
}

export function formatFeatureProblems(problems: FeatureProblem[]): string {
  return problems.map((p) => `feature "${p.feature}" ${p.message}`).join('; ');
}
