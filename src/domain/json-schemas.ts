import Ajv2020, { ValidateFunction, ErrorObject } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { canonicalJson } from '../canonical-json';

export { canonicalJson };

export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors?.length) return 'invalid';
  return errors
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`.trim())
    .slice(0, 5)
    .join('; ');
}

/**
 * Compiles JSON Schema 2020-12 documents that users store (feature schemas, handler contracts).
 * Compiled validators are cached by canonical content, so a schema is compiled once however often it is used.
 */
export class UserSchemaCompiler {
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(private readonly maxEntries = 2000) {
    // addUsedSchema:false keeps users' $id values from colliding inside the shared instance.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, addUsedSchema: false, validateFormats: true });
    addFormats(this.ajv);
  }

  /** Meta-validates against JSON Schema 2020-12 and checks it compiles; returns a problem, or undefined when valid. */
  check(schema: unknown): string | undefined {
    if (typeof schema === 'boolean') return undefined;
    if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return 'must be a JSON Schema object';
    if (!this.ajv.validateSchema(schema)) return `is not a valid JSON Schema 2020-12 document: ${describeErrors(this.ajv.errors)}`;
    try {
      this.compile(schema);
    } catch (err) {
      return `does not compile: ${(err as Error).message}`;
    }
    return undefined;
  }

  compile(schema: unknown): ValidateFunction {
    const key = canonicalJson(schema);
    let fn = this.cache.get(key);
    if (!fn) {
      fn = this.ajv.compile(schema as object);
      if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(key, fn);
    }
    return fn;
  }

  /** Returns a problem description, or undefined when value satisfies schema. */
  validate(schema: unknown, value: unknown): string | undefined {
    const fn = this.compile(schema);
    return fn(value) ? undefined : describeErrors(fn.errors);
  }

  get size(): number {
    return this.cache.size;
  }
}
