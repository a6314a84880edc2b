import type { ErrorObject } from 'ajv';

/** The `date-time` format as the request validator narrows it (src/instants.ts): what Postgres and Date both hold. */
const DATE_TIME_RULE =
  'must be an RFC 3339 date-time with an offset within ±15:59, in years 0001-9999 and without a leap second, e.g. 2026-12-20T10:00:00Z';

/** `/handlers/training` → `handlers.training`; the root is `body`. */
function fieldName(instancePath: string, child?: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  return parts.length ? parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i ? `.${p}` : p)).join('') : 'body';
}

function valueAt(data: unknown, instancePath: string): unknown {
  return instancePath
    .split('/')
    .slice(1)
    .reduce<unknown>(
      (o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined),
      data,
    );
}

/** A handler object names its kind, so its rules can be phrased for that kind ("in_process handler requires name"). */
function handlerKind(e: ErrorObject, data: unknown): string | undefined {
  if (!/Handler\//.test(e.schemaPath)) return undefined;
  const type = (valueAt(data, e.instancePath) as { type?: unknown } | undefined)?.type;
  return typeof type === 'string' ? type : undefined;
}

function phrase(e: ErrorObject, data: unknown): string | undefined {
  const field = fieldName(e.instancePath);
  const kind = handlerKind(e, data);
  // ajv's params differ by keyword; each case reads the one its keyword defines.
  const p = e.params as Record<string, string> & { allowedValues?: unknown[]; allowedValue?: unknown };
  switch (e.keyword) {
    case 'required':
      return kind
        ? `${field}: ${kind} handler requires ${p.missingProperty}`
        : `${fieldName(e.instancePath, p.missingProperty)} is required`;
    case 'additionalProperties':
      return kind
        ? `${field}: ${kind} handler does not take ${p.additionalProperty}`
        : `${fieldName(e.instancePath, p.additionalProperty)} is not a known field`;
    case 'unevaluatedProperties':
      return `${fieldName(e.instancePath, p.unevaluatedProperty)} is not a known field`;
    case 'discriminator':
      return `${fieldName(e.instancePath, p.tag)} must be one of lambda, container_task, in_process (the handler kind)`;
    case 'enum':
      return `${field} must be one of ${(p.allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${field} must be ${JSON.stringify(p.allowedValue)}`;
    case 'type':
      return `${field} must be of type ${Array.isArray(p.type) ? p.type.join(' or ') : p.type}`;
    case 'pattern': {
      const what = (e.parentSchema as { description?: string } | undefined)?.description;
      return what ? `${field} must be ${what[0].toLowerCase()}${what.slice(1)} (pattern ${p.pattern})` : `${field} must match ${p.pattern}`;
    }
    case 'format':
      return p.format === 'date-time' ? `${field} ${DATE_TIME_RULE}` : `${field} must be a ${p.format} string`;
    // Wrappers whose branches already produced the useful errors.
    case 'oneOf':
    case 'anyOf':
    case 'allOf':
    case 'if':
      return undefined;
    default:
      return `${field} ${e.message ?? 'is invalid'}`;
  }
}

/** ajv's errors as a sentence a caller can act on: each names the field and the rule it broke. */
export function describeBodyErrors(errors: ErrorObject[] | null | undefined, data: unknown): string {
  const messages = [...new Set((errors ?? []).map((e) => phrase(e, data)).filter((m): m is string => Boolean(m)))];
  return messages.length ? messages.slice(0, 5).join('; ') : 'body is invalid';
}

type QuerySchema = { type?: string; format?: string; minimum?: number; maximum?: number; minLength?: number; maxLength?: number };

/** The rule of a query parameter as a caller reads it: "must be a whole number from 1 to 200". */
export function queryRule(schema: QuerySchema, keyword: string, message?: string): string {
  if (schema.type === 'integer' && ['type', 'minimum', 'maximum'].includes(keyword)) {
    const range = [
      schema.minimum === undefined ? '' : ` from ${schema.minimum}`,
      schema.maximum === undefined ? '' : ` to ${schema.maximum}`,
    ];
    return `must be a whole number${range.join('')}`;
  }
  if (schema.type === 'boolean') return 'must be true or false';
  if (keyword === 'minLength' || keyword === 'maxLength')
    return `must be ${schema.minLength ?? 0} to ${schema.maxLength ?? '∞'} characters long`;
  if (schema.format === 'uuid' && (keyword === 'format' || keyword === 'pattern')) return 'must be a UUID';
  if (keyword === 'format' && schema.format === 'date-time') return DATE_TIME_RULE;
  return message ?? 'is invalid';
}

/** ajv's errors of a query object, each naming its parameter ("query parameter limit must be ..."). */
export function describeQueryErrors(errors: ErrorObject[] | null | undefined): string {
  const messages = (errors ?? []).map((e) => {
    const name = fieldName(e.instancePath);
    const p = e.params as { allowedValues?: unknown[] };
    const rule =
      e.keyword === 'enum'
        ? `must be one of ${(p.allowedValues ?? []).join(', ')}`
        : queryRule((e.parentSchema ?? {}) as QuerySchema, e.keyword, e.message);
    return `query parameter ${name} ${rule}`;
  });
  return [...new Set(messages)].slice(0, 5).join('; ') || 'invalid query';
}
