import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats';
import { schemas, pathParameterSchema } from '../openapi/schemas';
import { OPERATIONS, type Operation } from '../openapi/operations';
import { querySchemas } from '../openapi/query-parameters';
import { describeBodyErrors, describeQueryErrors, queryRule } from './validation-messages';
import { InvalidInputError } from '../errors';
import { instantProblem } from '../instants';

const rfc3339 = fullFormats['date-time'] as { validate: (text: string) => boolean; compare: (a: string, b: string) => number | undefined };

/** ajv-formats' `date-time`, narrowed to what Postgres and Date hold: every instant a caller gives is one the service can store. */
function addFormatsFor(ajv: Ajv2020): void {
  addFormats(ajv);
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (text: string) => rfc3339.validate(text) && instantProblem(text) === undefined,
    compare: rfc3339.compare,
  });
}

const DOC_ID = 'urn:model-orchestration:openapi';

/** Request validators compiled once, at start-up, from the OpenAPI component schemas. */
export class RequestValidator {
  private readonly ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    strictRequired: false,
    allowUnionTypes: true,
    discriminator: true,
    verbose: true,
  });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly patterns = new Map<string, RegExp>();
  // Query values are text: coercion turns them into the integers and booleans their schemas declare.
  // A separate instance, so no body is ever coerced.
  private readonly queryAjv = new Ajv2020({ strict: true, allErrors: true, coerceTypes: true, verbose: true });
  private readonly queries = new Map<string, { fn: ValidateFunction; schemas: Record<string, object> }>();

  constructor() {
    addFormatsFor(this.ajv);
    this.ajv.addKeyword({ keyword: 'components' });
    // The handler kind picks the one branch to check, so errors name that kind's fields instead of every branch's.
    // (Validator-only: an OpenAPI discriminator without mapping would tell client generators the wrong tag values.)
    const validated = { ...schemas, Handler: { ...schemas.Handler, discriminator: { propertyName: 'type' } } };
    this.ajv.addSchema({ $id: DOC_ID, components: { schemas: validated } });
    for (const name of Object.keys(schemas)) {
      this.compiled.set(name, this.ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${name}` }));
    }
    addFormatsFor(this.queryAjv);
    for (const op of OPERATIONS) {
      const properties = querySchemas(op);
      this.queries.set(op.id, { fn: this.queryAjv.compile({ type: 'object', properties }), schemas: properties });
    }
  }

  /** Validates a body against a named component schema and returns it typed; 400 naming the field otherwise. */
  body<T>(schemaName: string, body: unknown): T {
    const fn = this.compiled.get(schemaName);
    if (!fn) throw new Error(`no schema ${schemaName}`);
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new InvalidInputError('request body must be a JSON object');
    }
    if (!fn(body)) throw new InvalidInputError(`invalid request body: ${describeBodyErrors(fn.errors, body)}`);
    return body as T;
  }

  /** Path parameters: the shared identifier pattern, or a UUID where the column is one. */
  params(params: Record<string, string>): void {
    for (const [name, value] of Object.entries(params)) {
      const { pattern, format } = pathParameterSchema(name);
      let regex = this.patterns.get(pattern);
      if (!regex) this.patterns.set(pattern, (regex = new RegExp(pattern)));
      if (!regex.test(value))
        throw new InvalidInputError(`invalid path parameter ${name}: must ${format === 'uuid' ? 'be a UUID' : `match ${pattern}`}`);
    }
  }

  /**
   * The operation's query parameters, validated against the schemas the document shows and coerced to their types;
   * 400 naming the parameter otherwise. A repeated parameter is refused; one the operation does not declare is ignored.
   */
  query(op: Operation, query: Record<string, string | string[] | undefined>): Record<string, unknown> {
    const compiled = this.queries.get(op.id);
    if (!compiled) throw new Error(`no operation ${op.id}`);
    const values: Record<string, unknown> = {};
    for (const [name, raw] of Object.entries(query)) {
      if (Array.isArray(raw)) throw new InvalidInputError(`query parameter ${name} given more than once`);
      if (raw === undefined || !Object.hasOwn(compiled.schemas, name)) continue;
      const schema: { type?: string } = compiled.schemas[name];
      // ajv would also read "1e1", " 5" or "0x10" as numbers; only decimal digits were ever accepted.
      if (schema.type === 'integer' && !/^-?\d+$/.test(raw))
        throw new InvalidInputError(`query parameter ${name} ${queryRule(schema, 'type')}`);
      values[name] = raw;
    }
    if (!compiled.fn(values)) throw new InvalidInputError(describeQueryErrors(compiled.fn.errors));
    return values;
  }
}
