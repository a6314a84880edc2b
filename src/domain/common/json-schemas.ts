import Ajv2020, { ValidateFunction, ErrorObject } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { canonicalJson } from '../../canonical-json';
import { linearRegExp, UnrunnablePattern } from './linear-regexp';

export { canonicalJson };

export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors?.length) return 'invalid';
  return errors
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`.trim())
    .slice(0, 5)
    .join('; ');
}

/** Deepest nesting of objects and arrays validated against a user's schema: as deep as a request body may be. */
export const MAX_VALIDATED_DEPTH = 64;
/** Longest a single validation of user data may hold the event loop. */
export const VALIDATION_BUDGET_MS = 250;

/** Why a user's schema is refused: `unrunnable` when it is valid JSON Schema the validator cannot run (a 400). */
export interface SchemaProblem {
  message: string;
  unrunnable: boolean;
}

/** A validation that ran past VALIDATION_BUDGET_MS; thrown from inside ajv's code, caught in `validate`. */
class ValidationTimeout extends Error {}

// Keywords whose value is data, never a schema: nothing under them is checked for time.
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);
// Keywords whose value maps names to schemas: the map itself is not a schema.
const MAP_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
// Dynamic references resolve through the evaluation path, where a loop without end is easy to write and hard to see.
const REFUSED_KEYWORDS = new Set(['$dynamicRef', '$recursiveRef']);
const DEADLINE_KEYWORD = 'x-validation-deadline';
// Values every schema is tried on when stored: a schema that throws or runs out of time on one of them is refused.
const PROBES: unknown[] = [null, true, 0, 1.5, -1, '', 'a', [], [null], [[]], {}, { '': null }, { a: {} }];

function pointer(path: Array<string | number>): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('') || '/';
}

/** A copy of a user's schema with the deadline check in every object a schema can be, and the first refused keyword. */
function instrument(schema: object): { copy: object; refused?: string } {
  let refused: string | undefined;
  const walk = (value: unknown, path: Array<string | number>, isMap: boolean): unknown => {
    if (Array.isArray(value)) return value.map((item, i) => walk(item, [...path, i], false));
    if (!value || typeof value !== 'object') return value;
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (!isMap && REFUSED_KEYWORDS.has(key)) refused ??= pointer([...path, key]);
      copy[key] = !isMap && DATA_KEYWORDS.has(key) ? item : walk(item, [...path, key], !isMap && MAP_KEYWORDS.has(key));
    }
    if (!isMap) copy[DEADLINE_KEYWORD] = true;
    return copy;
  };
  return { copy: walk(schema, [], false) as object, refused };
}

/** Where a pattern sits in a schema, as a JSON Pointer (its `pattern` keyword or its key in `patternProperties`). */
function patternPath(schema: unknown, pattern: string): string | undefined {
  const stack: Array<{ value: unknown; path: Array<string | number> }> = [{ value: schema, path: [] }];
  while (stack.length) {
    const { value, path } = stack.pop()!;
    if (!value || typeof value !== 'object') continue;
    const record = value as Record<string, unknown>;
    if (record.pattern === pattern) return pointer([...path, 'pattern']);
    const props = record.patternProperties;
    if (props && typeof props === 'object' && Object.hasOwn(props, pattern)) return pointer([...path, 'patternProperties', pattern]);
    for (const [key, item] of Object.entries(value)) stack.push({ value: item, path: [...path, Array.isArray(value) ? Number(key) : key] });
  }
  return undefined;
}

/** How deep a value nests, counted without recursion and only up to `limit + 1`. */
function exceedsDepth(value: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length) {
    const { value: v, depth } = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (depth >= limit) return true;
    for (const item of Array.isArray(v) ? v : Object.values(v)) stack.push({ value: item, depth: depth + 1 });
  }
  return false;
}

/** ajv's `uniqueItems` compares every pair of items (193 s for 60,000 objects); equal items share canonical JSON. */
function uniqueItems(unique: boolean, data: unknown[]): boolean {
  if (!unique) return true;
  const seen = new Set<string>();
  for (const item of data) {
    const key = canonicalJson(item);
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

/**
 * Compiles JSON Schema 2020-12 documents that users store (feature schemas, handler contracts) and validates user
 * data against them. Compiled validators are cached by canonical content, so a schema is compiled once however often
 * it is used. Every validation is bounded: patterns run in linear time (RE2), data nests at most MAX_VALIDATED_DEPTH
 * levels, and one validation stops after VALIDATION_BUDGET_MS; a validation that cannot finish is a failed one.
 */
export class UserSchemaCompiler {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();
  private deadline = Infinity;
  private steps = 0;

  constructor(
    private readonly maxEntries = 2000,
    private readonly budgetMs = VALIDATION_BUDGET_MS,
  ) {
    // addUsedSchema:false keeps users' $id values from colliding inside the shared instance.
    this.ajv = new Ajv2020({
      strict: false,
      allErrors: true,
      addUsedSchema: false,
      validateFormats: true,
      code: { regExp: linearRegExp },
    });
    addFormats(this.ajv);
    this.ajv.removeKeyword('uniqueItems');
    this.ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', validate: uniqueItems, errors: false });
    // Checked at each subschema a validation enters: a schema whose references fan out (2^22 evaluations of one value
    // took 8 s) is stopped at the deadline instead of holding the event loop.
    this.ajv.addKeyword({
      keyword: DEADLINE_KEYWORD,
      schemaType: 'boolean',
      errors: false,
      validate: () => {
        if ((++this.steps & 0xff) === 0 && performance.now() > this.deadline) throw new ValidationTimeout();
        return true;
      },
    });
  }

  /**
   * Meta-validates against JSON Schema 2020-12, checks it compiles and that the validator can run it: patterns RE2
   * can run, no dynamic references, and no error or timeout on a few probe values. Returns a problem, or undefined.
   */
  check(schema: unknown): SchemaProblem | undefined {
    if (typeof schema === 'boolean') return undefined;
    if (!schema || typeof schema !== 'object' || Array.isArray(schema))
      return { message: 'must be a JSON Schema object', unrunnable: false };
    if (!this.ajv.validateSchema(schema)) {
      return { message: `is not a valid JSON Schema 2020-12 document: ${describeErrors(this.ajv.errors)}`, unrunnable: false };
    }
    const refused = instrument(schema).refused;
    if (refused) return { message: `uses a dynamic reference at ${refused}, which the service does not run`, unrunnable: true };
    let fn: ValidateFunction;
    try {
      fn = this.compile(schema);
    } catch (err) {
      if (err instanceof UnrunnablePattern) {
        const at = patternPath(schema, err.pattern) ?? '/';
        return { message: `pattern at ${at} ${JSON.stringify(err.pattern)} ${err.message}`, unrunnable: true };
      }
      if (err instanceof RangeError) return { message: 'cannot be compiled: its references loop without end', unrunnable: true };
      return { message: `does not compile: ${(err as Error).message}`, unrunnable: false };
    }
    for (const probe of PROBES) {
      const problem = this.run(fn, probe);
      if (problem?.unrunnable)
        return { message: `cannot be evaluated: ${problem.message} (on ${JSON.stringify(probe)})`, unrunnable: true };
    }
    return undefined;
  }

  compile(schema: unknown): ValidateFunction {
    const key = canonicalJson(schema);
    let fn = this.cache.get(key);
    if (!fn) {
      fn = this.ajv.compile(typeof schema === 'boolean' ? schema : instrument(schema as object).copy);
      if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(key, fn);
    }
    return fn;
  }

  /** Returns a problem description, or undefined when value satisfies schema; never throws for the data's sake. */
  validate(schema: unknown, value: unknown): string | undefined {
    let fn: ValidateFunction;
    try {
      fn = this.compile(schema);
    } catch (err) {
      // A schema stored before the checks of `check` existed: the data fails, the request does not.
      return `(root) could not be validated: the schema does not compile (${(err as Error).message})`;
    }
    return this.run(fn, value)?.message;
  }

  private run(fn: ValidateFunction, value: unknown): { message: string; unrunnable: boolean } | undefined {
    if (exceedsDepth(value, MAX_VALIDATED_DEPTH))
      return { message: `(root) is nested deeper than ${MAX_VALIDATED_DEPTH} levels`, unrunnable: false };
    this.deadline = performance.now() + this.budgetMs;
    this.steps = 0;
    try {
      return fn(value) ? undefined : { message: describeErrors(fn.errors), unrunnable: false };
    } catch (err) {
      if (err instanceof ValidationTimeout)
        return { message: `(root) could not be validated within ${this.budgetMs} ms`, unrunnable: true };
      // A schema whose references loop without consuming data overflows the stack.
      if (err instanceof RangeError) return { message: '(root) could not be validated: the schema recurses without end', unrunnable: true };
      throw err;
    } finally {
      this.deadline = Infinity;
    }
  }

  get size(): number {
    return this.cache.size;
  }
}
