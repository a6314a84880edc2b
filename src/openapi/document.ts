import { OPERATIONS, Operation } from './operations';
import { schemas, pathParameterSchema } from './schemas';

const errorRef = { $ref: '#/components/schemas/ErrorResponse' };
const errorDescriptions: Record<number, string> = {
  400: 'Validation error', 401: 'Missing or invalid bearer token', 403: 'Permission or tenant access missing',
  404: 'Not found', 409: 'Conflict', 422: 'Semantically invalid request', 503: 'A dependency is unavailable',
};

function pathParameters(path: string) {
  return [...path.matchAll(/\{([a-z_]+)\}/g)].map(([, name]) => ({
    name, in: 'path', required: true, schema: pathParameterSchema(name),
  }));
}

function responses(op: Operation) {
  const success = op.paginated
    ? { type: 'object', properties: { items: { type: 'array', items: { $ref: `#/components/schemas/${op.response}` } }, next_cursor: { type: ['string', 'null'] } } }
    : { $ref: `#/components/schemas/${op.response}` };
  const out: Record<string, object> = { [op.status]: { description: 'Success', content: { 'application/json': { schema: success } } } };
  if (op.id === 'upsertClient') out[201] = { description: 'Created', content: { 'application/json': { schema: success } } };
  const codes = new Set([400, ...(op.permission === 'public' ? [] : [401, 403]), 404, ...(op.errors ?? [])]);
  for (const code of codes) {
    if (code === 207) {
      out[207] = { description: 'Completed; one or more cascade entries failed', content: { 'application/json': { schema: success } } };
    } else if (code === 422 && op.id === 'upsertDomainAssignment') {
      out[422] = {
        description: 'Blocked by incompatible services (AssignBlockedErrorResponse), or another semantic error (ErrorResponse)',
        content: { 'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/AssignBlockedErrorResponse' }, errorRef] } } },
      };
    } else {
      out[code] = { description: errorDescriptions[code] ?? 'Error', content: { 'application/json': { schema: errorRef } } };
    }
  }
  return out;
}

function pathItem(op: Operation) {
  const query = Object.entries(op.query ?? {}).map(([name, schema]) => ({ name, in: 'query', required: false, schema }));
  if (op.paginated) {
    query.push({ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } });
    query.push({ name: 'cursor', in: 'query', required: false, schema: { type: 'string' } });
  }
  return {
    operationId: op.id,
    summary: op.summary,
    tags: [op.path.split('/')[2]],
    ...(op.permission === 'public' ? { security: [] } : {}),
    'x-permission': op.permission,
    'x-tenancy': op.tenancy,
    parameters: [...pathParameters(op.path), ...query],
    ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${op.body}` } } } } } : {}),
    responses: responses(op),
  };
}

/** The OpenAPI 3.1 document, built from the operation table and the component schemas. */
export function buildOpenApiDocument(serverUrl?: string) {
  const paths: Record<string, Record<string, object>> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method.toLowerCase()] = pathItem(op);
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Model Orchestration Service API',
      version: '2.0.0',
      description: 'Multi-tenant model registry, assignments, services and durable jobs on Temporal. See docs/ in the repository for the decisions the spec leaves open.',
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas,
    },
  };
}
