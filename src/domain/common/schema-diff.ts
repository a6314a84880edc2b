import type { Schemas } from '../../openapi/types';
import { canonicalJson } from '../../canonical-json';

/**
 * What changed between two JSON Schemas, seen from a value that satisfied the old one: a breaking change
 * can make such a value invalid (or change what it resolves to), a compatible one cannot. Pure; covers the
 * keywords feature schemas and handler contracts use (type, properties, required, additionalProperties,
 * enum, const, default, numeric and length bounds, items). Other keywords that differ are reported once as
 * `schema_changed`, breaking, because their effect is not derived.
 */
export type ChangeKind =
  | 'property_removed'
  | 'property_added'
  | 'new_required_field'
  | 'field_no_longer_required'
  | 'additional_properties_closed'
  | 'additional_properties_opened'
  | 'type_narrowed'
  | 'type_widened'
  | 'type_changed'
  | 'enum_value_removed'
  | 'enum_value_added'
  | 'enum_added'
  | 'enum_removed'
  | 'const_changed'
  | 'default_changed'
  | 'default_added'
  | 'default_removed'
  | 'range_narrowed'
  | 'range_widened'
  | 'schema_changed';

export type SchemaChange = Schemas['SchemaChange'];

type Schema = Record<string, unknown>;

const ALL_TYPES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'];
const HANDLED = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'enum',
  'const',
  'default',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'items',
  'description',
  'title',
  '$schema',
  '$id',
  'examples',
]);
/** Lower bounds: a larger value narrows. Upper bounds: a smaller value narrows. */
const LOWER = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems'];
const UPPER = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems'];

const show = (v: unknown) => JSON.stringify(v);
const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);
const label = (path: string) => path || '(value)';
const child = (path: string, name: string) => (path ? `${path}.${name}` : name);

function asSchema(s: unknown): Schema | boolean {
  if (typeof s === 'boolean') return s;
  return s && typeof s === 'object' && !Array.isArray(s) ? (s as Schema) : {};
}

/** The types a schema accepts; `integer` counts as accepted wherever `number` is. */
function acceptedTypes(s: Schema): Set<string> {
  const t = s.type;
  const listed = t === undefined ? ALL_TYPES : Array.isArray(t) ? (t as string[]) : [t as string];
  const out = new Set(listed);
  if (out.has('number')) out.add('integer');
  return out;
}

function describeTypes(s: Schema): string {
  return s.type === undefined ? 'any' : Array.isArray(s.type) ? (s.type as string[]).join('|') : JSON.stringify(s.type).replace(/"/g, '');
}

/** Records one change at `at` (the schema's own path when omitted). */
type Add = (kind: ChangeKind, breaking: boolean, words: string, at?: string) => void;

/** The accepted JSON types: lost ones narrow, gained ones widen. */
function diffTypes(a: Schema, b: Schema, add: Add): void {
  const ta = acceptedTypes(a);
  const tb = acceptedTypes(b);
  const lost = [...ta].filter((t) => !tb.has(t));
  const gained = [...tb].filter((t) => !ta.has(t));
  if (lost.length && gained.length) add('type_changed', true, `type changed (${describeTypes(a)} → ${describeTypes(b)})`);
  else if (lost.length) add('type_narrowed', true, `type narrowed (${describeTypes(a)} → ${describeTypes(b)})`);
  else if (gained.length) add('type_widened', false, `type widened (${describeTypes(a)} → ${describeTypes(b)})`);
}

/** The enum, const and default: the values a schema names. */
function diffValues(a: Schema, b: Schema, add: Add): void {
  const ea = a.enum as unknown[] | undefined;
  const eb = b.enum as unknown[] | undefined;
  if (ea && eb) {
    for (const v of ea) if (!eb.some((w) => same(v, w))) add('enum_value_removed', true, `enum value ${show(v)} removed`);
    for (const v of eb) if (!ea.some((w) => same(v, w))) add('enum_value_added', false, `enum value ${show(v)} added`);
  } else if (eb) add('enum_added', true, `values restricted to the enum ${show(eb)}`);
  else if (ea) add('enum_removed', false, `enum ${show(ea)} lifted`);
  if ('const' in a || 'const' in b) {
    if (!same(a.const, b.const)) {
      const breaking = 'const' in b;
      add('const_changed', breaking, `const ${'const' in a ? show(a.const) : 'none'} → ${'const' in b ? show(b.const) : 'none'}`);
    }
  }

  // default
  if ('default' in a && 'default' in b && !same(a.default, b.default))
    add('default_changed', true, `default changed (${show(a.default)} → ${show(b.default)})`);
  else if ('default' in a && !('default' in b)) add('default_removed', true, `default ${show(a.default)} removed`);
  else if (!('default' in a) && 'default' in b) add('default_added', false, `default ${show(b.default)} added`);
}

/** The numeric and length bounds. */
function diffBounds(a: Schema, b: Schema, add: Add): void {
  for (const key of [...LOWER, ...UPPER]) {
    const va = a[key] as number | undefined;
    const vb = b[key] as number | undefined;
    if (va === vb) continue;
    const lower = LOWER.includes(key);
    const narrowed = vb !== undefined && (va === undefined || (lower ? vb > va : vb < va));
    add(
      narrowed ? 'range_narrowed' : 'range_widened',
      narrowed,
      `${key} ${va === undefined ? 'added' : vb === undefined ? 'removed' : 'changed'} (${va ?? 'none'} → ${vb ?? 'none'})`,
    );
  }
}

/** The object shape: properties (compared in depth), required fields and additional properties. */
function diffShape(a: Schema, b: Schema, path: string, add: Add, changes: SchemaChange[]): void {
  const pa = (a.properties ?? {}) as Record<string, unknown>;
  const pb = (b.properties ?? {}) as Record<string, unknown>;
  const closedAfter = b.additionalProperties === false;
  for (const name of Object.keys(pa)) {
    if (!(name in pb)) add('property_removed', true, 'property removed', child(path, name));
    else changes.push(...diffSchemas(pa[name], pb[name], child(path, name)));
  }
  for (const name of Object.keys(pb)) if (!(name in pa)) add('property_added', false, 'property added', child(path, name));
  const ra = new Set((a.required ?? []) as string[]);
  const rb = new Set((b.required ?? []) as string[]);
  for (const name of rb) if (!ra.has(name)) add('new_required_field', true, 'new required field', child(path, name));
  for (const name of ra) if (!rb.has(name)) add('field_no_longer_required', false, 'no longer required', child(path, name));
  if (a.additionalProperties !== false && closedAfter) add('additional_properties_closed', true, 'additional properties no longer allowed');
  else if (a.additionalProperties === false && b.additionalProperties !== false)
    add('additional_properties_opened', false, 'additional properties allowed');
  else if (a.additionalProperties !== undefined && typeof a.additionalProperties === 'object' && typeof b.additionalProperties === 'object')
    changes.push(...diffSchemas(a.additionalProperties, b.additionalProperties, child(path, '*')));
}

/** The changes between `before` and `after`, outermost first. Empty when the schemas accept the same values. */
export function diffSchemas(before: unknown, after: unknown, path = ''): SchemaChange[] {
  const a = asSchema(before);
  const b = asSchema(after);
  if (typeof a === 'boolean' || typeof b === 'boolean') {
    if (a === b || same(a, b)) return [];
    const narrowed = b === false || (a === true && typeof b !== 'boolean' && Object.keys(b).length > 0);
    return [
      {
        path,
        kind: narrowed ? 'type_narrowed' : 'type_widened',
        breaking: narrowed,
        reason: `${label(path)}: schema ${narrowed ? 'narrowed' : 'widened'} (${show(a)} → ${show(b)})`,
      },
    ];
  }
  const changes: SchemaChange[] = [];
  const add: Add = (kind, breaking, words, at = path) => {
    changes.push({ path: at, kind, breaking, reason: `${label(at)}: ${words}` });
  };

  diffTypes(a, b, add);
  diffValues(a, b, add);
  diffBounds(a, b, add);
  diffShape(a, b, path, add, changes);

  // array items
  if (a.items !== undefined || b.items !== undefined) changes.push(...diffSchemas(a.items ?? true, b.items ?? true, `${path}[]`));

  // anything else we do not derive
  const others = new Set([...Object.keys(a), ...Object.keys(b)].filter((k) => !HANDLED.has(k)));
  const differing = [...others].filter((k) => !same(a[k], b[k]));
  if (differing.length) add('schema_changed', true, `${differing.join(', ')} changed (effect not derived)`);
  return changes;
}

/** Whether any change can invalidate a value that satisfied the old schema. */
export function isBreaking(changes: SchemaChange[]): boolean {
  return changes.some((c) => c.breaking);
}
