import fc, { Arbitrary } from 'fast-check';

/** JSON Schema as the OpenAPI document writes it; only what the generator reads. */
type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  additionalProperties?: boolean | Schema;
};

export interface FuzzRequest {
  operationId: string;
  method: string;
  path: string;
  /** Raw JSON text, so bodies too deep for JSON.stringify can be sent. */
  body?: string;
  headers: Record<string, string>;
}

/** Text Postgres cannot store or that is not Unicode, and other strings handlers meet rarely. */
const HOSTILE_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00',
  '\udbff\udbff',
  '',
  ' ',
  'x'.repeat(5000),
  '😀',
  '\u202e',
  '%00',
  '../..',
  "' or 1=1 --",
  '{{7*7}}',
  '2030-13-45T99:99:99Z',
  '+275760-09-13T00:00:00.000Z',
];
const HOSTILE_NUMBERS = [-1, 0, -0, 1e308, -1e308, 2 ** 53 + 2, -(2 ** 63), 1e-320, 0.5, 4294967296];
/** Path segments as sent on the wire (already URL-encoded where it matters). */
const ODD_SEGMENTS = [
  '%00',
  '..',
  '%2e%2e',
  '%E2%98%83',
  '%ED%A0%80',
  '%C0%80',
  '%FF',
  'a'.repeat(300),
  "'%20or%201=1%20--",
  '%25',
  '-1',
  '1e309',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '%20',
  'null',
];

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** Cursors a client might forge: dates JavaScript accepts and Postgres does not, NUL ids, wrong shapes, junk. */
const FORGED_CURSORS = [
  cursorOf(['2024', 'x']),
  cursorOf(['+275760-09-13T00:00:00.000Z', 'x']),
  cursorOf(['2024-01-01T00:00:00.000Z', 'a\u0000']),
  cursorOf(['2024-01-01T00:00:00.000Z', '\ud800']),
  cursorOf(['0000-01-01T00:00:00.000Z', 'x']),
  cursorOf({ a: 1 }),
  cursorOf([1, 2]),
  cursorOf(['Tue Mar 05 2024 10:00:00 GMT+0100 (CET)', 'x']),
  '%7B',
  'not-base64!',
  'A'.repeat(2000),
  '%00',
];
const ODD_LIMITS = ['-1', '0', '201', '1e3', '99999999999999999999', 'abc', '%00', '1.5', ''];

/** A value of any JSON type, sometimes hostile. */
function anyValue(): Arbitrary<unknown> {
  return fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.constantFrom(...HOSTILE_NUMBERS),
    fc.constantFrom(null, true, [], {}),
  );
}

/** Generates JSON for a schema of the document: valid-looking values, each field sometimes replaced by a hostile one. */
export class SchemaArbitraries {
  constructor(private readonly components: Record<string, Schema>) {}

  private resolve(schema: Schema): Schema {
    return schema.$ref ? this.resolve(this.components[schema.$ref.split('/').pop()!]) : schema;
  }

  valueFor(input: Schema, depth = 0): Arbitrary<unknown> {
    const schema = this.resolve(input);
    const shaped = this.shaped(schema, depth);
    return depth > 4 ? shaped : fc.oneof({ arbitrary: shaped, weight: 6 }, { arbitrary: anyValue(), weight: 1 });
  }

  private shaped(schema: Schema, depth: number): Arbitrary<unknown> {
    if (schema.const !== undefined) return fc.constant(schema.const);
    if (schema.enum) return fc.constantFrom(...schema.enum);
    const variants = schema.oneOf ?? schema.anyOf;
    if (variants) return fc.oneof(...variants.map((v) => this.valueFor(v, depth + 1)));
    if (schema.allOf) {
      return fc
        .tuple(...schema.allOf.map((s) => this.valueFor(s, depth + 1)))
        .map((parts) => Object.assign({}, ...parts.filter((p) => p && typeof p === 'object' && !Array.isArray(p))));
    }
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    switch (type) {
      case 'object': {
        const props = Object.entries(schema.properties ?? {});
        if (!props.length) return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
        return fc.record(Object.fromEntries(props.map(([k, v]) => [k, this.valueFor(v, depth + 1)])), { requiredKeys: [] });
      }
      case 'array':
        return fc.array(schema.items ? this.valueFor(schema.items, depth + 1) : fc.jsonValue({ maxDepth: 1 }), { maxLength: 4 });
      case 'string':
        if (schema.format === 'date-time')
          return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
        if (schema.format === 'uuid') return fc.uuid();
        if (schema.pattern)
          return fc.stringMatching(new RegExp(schema.pattern), { size: 'xsmall' }).filter((s) => s.length <= (schema.maxLength ?? 300));
        return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 20, 20) });
      case 'integer':
        return fc.integer({ min: schema.minimum ?? -10, max: schema.maximum ?? 1000 });
      case 'number':
        return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
      case 'boolean':
        return fc.boolean();
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  }

  /** A request body as JSON text: from the schema, a hostile root, or nested past every limit. */
  bodyFor(schema: Schema): Arbitrary<string> {
    return fc.oneof(
      { arbitrary: this.valueFor(schema).map((v) => JSON.stringify(v)), weight: 8 },
      { arbitrary: anyValue().map((v) => JSON.stringify(v)), weight: 1 },
      { arbitrary: fc.integer({ min: 60, max: 20000 }).map((n) => `{"metadata":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`), weight: 1 },
      { arbitrary: fc.constantFrom('{', '{"a":1,}', 'nul', '"\\u0000"', '{"a":"\\ud800"}', '[1e999]'), weight: 1 },
    );
  }
}

/** Every operation of the document as an arbitrary request: path segments, query values and body. */
export function requestsFrom(document: any, fixtures: Record<string, string>): Arbitrary<FuzzRequest> {
  const schemas = new SchemaArbitraries(document.components.schemas);
  const operations: Arbitrary<FuzzRequest>[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const params: any[] = op.parameters ?? [];
      const segments = params
        .filter((p) => p.in === 'path')
        .map((p) =>
          fc
            .oneof(
              { arbitrary: fc.constant(encodeURIComponent(fixtures[p.name] ?? 'missing')), weight: 5 },
              { arbitrary: fc.constantFrom(...ODD_SEGMENTS), weight: 1 },
            )
            .map((v) => [p.name, v] as const),
        );
      const query = params
        .filter((p) => p.in === 'query')
        .map((p) =>
          fc.option(
            queryValue(p).map((v) => `${p.name}=${v}`),
            { nil: undefined, freq: 2 },
          ),
        );
      const bodyRef = op.requestBody?.content?.['application/json']?.schema;
      operations.push(
        fc
          .record({
            segments: fc.tuple(...segments),
            query: fc.tuple(...query),
            body: bodyRef ? schemas.bodyFor(bodyRef) : fc.constant(undefined),
            idempotencyKey: fc.option(fc.constantFrom('k1', 'k2', 'x'.repeat(300), 'ü'), { nil: undefined, freq: 4 }),
          })
          .map(({ segments: segs, query: q, body, idempotencyKey }): FuzzRequest => {
            let concrete = path;
            for (const [name, value] of segs) concrete = concrete.replace(`{${name}}`, value);
            const qs = q.filter(Boolean).join('&');
            const request: FuzzRequest = {
              operationId: op.operationId,
              method: method.toUpperCase(),
              path: qs ? `${concrete}?${qs}` : concrete,
              body,
              headers: idempotencyKey && /^[\x20-\x7e]*$/.test(idempotencyKey) ? { 'Idempotency-Key': idempotencyKey } : {},
            };
            // A counterexample prints short, even with a body 20,000 levels deep.
            return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
          }),
      );
    }
  }
  return fc.oneof(...operations);
}

/** One line for a request: method, path, headers and the start of the body. */
export function describeRequest(r: FuzzRequest): string {
  const body =
    r.body === undefined ? '' : ` body(${r.body.length} chars) ${JSON.stringify(r.body.slice(0, 160))}${r.body.length > 160 ? '…' : ''}`;
  return `${r.method} ${r.path}${Object.keys(r.headers).length ? ` ${JSON.stringify(r.headers)}` : ''}${body}`;
}

function queryValue(param: any): Arbitrary<string> {
  if (param.name === 'cursor') return fc.constantFrom(...FORGED_CURSORS);
  if (param.name === 'limit') return fc.oneof(fc.integer({ min: 1, max: 200 }).map(String), fc.constantFrom(...ODD_LIMITS));
  const valid = param.schema?.enum
    ? fc.constantFrom(...(param.schema.enum as string[]))
    : param.schema?.type === 'boolean'
      ? fc.constantFrom('true', 'false')
      : fc.string({ maxLength: 10 }).map(encodeURIComponent);
  return fc.oneof(
    { arbitrary: valid, weight: 3 },
    {
      arbitrary: fc.constantFrom(
        ...HOSTILE_STRINGS.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '')) || '%00'),
        '%ED%A0%80',
      ),
      weight: 1,
    },
  );
}
