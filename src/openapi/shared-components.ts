/** Reusable parameters, headers and error responses of the OpenAPI document. */

const requestId = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
const errorBody = (description: string) => ({
  description,
  headers: requestId,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
});

export const parameters = {
  Limit: {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'Page size',
    schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  },
  Cursor: {
    name: 'cursor',
    in: 'query',
    required: false,
    description: 'The `next_cursor` of the previous page',
    schema: { type: 'string' },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'A key of 1-200 visible ASCII characters. The same key from the same caller on the same operation returns the first job and changes nothing; the same key with a different request is a 422.',
    schema: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[\\x21-\\x7e]+$' },
  },
};

export const headers = {
  RequestId: {
    description: 'The request id: the X-Request-Id the caller sent when sane, else a new UUID. Logged with the request.',
    schema: { type: 'string' },
  },
  WwwAuthenticate: {
    description:
      '`Bearer` when no token was sent; `Bearer error="invalid_token", error_description="..."` when the token was refused (RFC 6750)',
    required: true,
    schema: { type: 'string' },
  },
};

/** Error responses by status; `name` is the component name. */
export const errorResponses: Record<number, { name: string; response: object }> = {
  400: {
    name: 'BadRequest',
    response: errorBody(
      'Validation error: malformed JSON, a body that is not application/json, a field breaking its schema (the message names the field and the rule), a bad path identifier or query value',
    ),
  },
  401: {
    name: 'Unauthorized',
    response: {
      ...errorBody('Missing, invalid or expired bearer token'),
      headers: { ...requestId, 'WWW-Authenticate': { $ref: '#/components/headers/WwwAuthenticate' } },
    },
  },
  403: { name: 'Forbidden', response: errorBody('The token lacks the permission (named in the message) or the tenant access') },
  404: { name: 'NotFound', response: errorBody('The resource does not exist, or is a job of a tenant the caller may not see') },
  409: {
    name: 'Conflict',
    response: errorBody('Duplicate identifier, a status transition the rules refuse, or a completion contradicting the recorded one'),
  },
  413: { name: 'PayloadTooLarge', response: errorBody('The request body exceeds 1 MB') },
  422: {
    name: 'Unprocessable',
    response: errorBody(
      'Semantically invalid: domain not active, no model assigned, features not matching the freeze, input not matching a contract, suspended tenant',
    ),
  },
  503: { name: 'Unavailable', response: errorBody('The database or Temporal is unreachable; retry later') },
};

/** The 422 of the domain assignment upsert: one of two bodies. */
export const assignmentBlocked = {
  description:
    'Blocked by services whose features do not fit the target version (AssignBlockedErrorResponse), or another semantic error (ErrorResponse)',
  headers: requestId,
  content: {
    'application/json': {
      schema: { oneOf: [{ $ref: '#/components/schemas/AssignBlockedErrorResponse' }, { $ref: '#/components/schemas/ErrorResponse' }] },
    },
  },
};
