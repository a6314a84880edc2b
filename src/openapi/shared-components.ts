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
  RetryAfter: {
    description: 'Seconds to wait before the request can succeed',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  RateLimitPolicy: {
    description:
      'The limits the request was counted against (IETF draft-ietf-httpapi-ratelimit-headers): `"requests"` (per caller of a tenant) and `"jobs"` (job starts per tenant), each with its quota `q` (the bucket size, `burst`) and window `w` in seconds (the time the bucket takes to refill whole), e.g. `"jobs";q=200;w=4`',
    schema: { type: 'string' },
  },
  RateLimit: {
    description:
      'The state of each limit after this request: `r` requests (or job starts) left now, `t` seconds until the next one when none is left, else until the bucket is full, e.g. `"jobs";r=0;t=1`',
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
  429: {
    name: 'TooManyRequests',
    response: {
      ...errorBody(
        "Over a rate limit (docs/fairness.md): the tenant's job starts past its `jobs_per_second` and `burst`, or a tenant caller's requests past the per-caller limit; the message names the limit. Nothing was written.",
      ),
      headers: {
        ...requestId,
        'Retry-After': { $ref: '#/components/headers/RetryAfter' },
        'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' },
        RateLimit: { $ref: '#/components/headers/RateLimit' },
      },
    },
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
