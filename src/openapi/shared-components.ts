/** Reusable parameters, headers and error responses of the OpenAPI document. */
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../paging';
import { MAX_OUTPUT_BYTES, MAX_OUTPUT_DEPTH, MAX_OUTPUT_VALUES, OUTPUT_UNSTORABLE } from '../domain/jobs';

const requestId = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
/** An ErrorResponse, with an example whose message has the form the service's own message of that status has. */
const errorBody = (description: string, message: string) => ({
  description,
  headers: requestId,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' }, example: { success: false, message } } },
});

export const parameters = {
  Limit: {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'Page size',
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
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
      'handlers.inference: in_process handler requires name',
    ),
  },
  401: {
    name: 'Unauthorized',
    response: {
      ...errorBody('Missing, invalid or expired bearer token', 'missing bearer token'),
      headers: { ...requestId, 'WWW-Authenticate': { $ref: '#/components/headers/WwwAuthenticate' } },
    },
  },
  403: {
    name: 'Forbidden',
    response: errorBody(
      'The token lacks the permission (named in the message) or the tenant access',
      'missing permission service_init (scope platform/service_init)',
    ),
  },
  404: {
    name: 'NotFound',
    response: errorBody(
      'The resource does not exist, or is a job of a tenant the caller may not see',
      'job 0190f0c2-5d3b-7c2e-9a8b-2f6c1d4e5a7b not found',
    ),
  },
  409: {
    name: 'Conflict',
    response: errorBody(
      'Duplicate identifier, a status transition the rules refuse, or a completion contradicting the recorded one',
      'model scorer already exists',
    ),
  },
  413: { name: 'PayloadTooLarge', response: errorBody('The request body exceeds 1 MB', 'request body exceeds 1 MB') },
  422: {
    name: 'Unprocessable',
    response: errorBody(
      'Semantically invalid: domain not active, no model assigned, features not matching the freeze, input not matching a contract, suspended tenant',
      'domain flights is not active',
    ),
  },
  429: {
    name: 'TooManyRequests',
    response: {
      ...errorBody(
        "Over a rate limit (docs/fairness.md): the tenant's job starts past its `jobs_per_second` and `burst`, or a tenant caller's requests past the per-caller limit; the message names the limit. Nothing was written.",
        'jobs_per_second exceeded for acme: 50 per second with a burst of 200; retry in 1 s',
      ),
      headers: {
        ...requestId,
        'Retry-After': { $ref: '#/components/headers/RetryAfter' },
        'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' },
        RateLimit: { $ref: '#/components/headers/RateLimit' },
      },
    },
  },
  503: {
    name: 'Unavailable',
    response: errorBody('The database or Temporal is unreachable; retry later', 'Temporal is unavailable; retry later'),
  },
};

/** The 422 of the domain assignment upsert: one of two bodies. */
export const assignmentBlocked = {
  description:
    'Blocked by services whose features do not fit the target version (AssignBlockedErrorResponse), or another semantic error (ErrorResponse)',
  headers: requestId,
  content: {
    'application/json': {
      schema: { oneOf: [{ $ref: '#/components/schemas/AssignBlockedErrorResponse' }, { $ref: '#/components/schemas/ErrorResponse' }] },
      example: {
        error: '1 non-departed service(s) have provided_features incompatible with scorer@2',
        blocking_services: [{ service_id: 'LH-400', feature: 'seats', value: 900 }],
      },
    },
  },
};

/** The completion's 400: besides the usual validation, a report the job's record could not hold. */
export const completionBadRequest = errorBody(
  'Validation error, or a report the job could not store (`' +
    OUTPUT_UNSTORABLE +
    '`): an `output` or `error` that holds a NUL character or a lone surrogate, is nested deeper than ' +
    `${MAX_OUTPUT_DEPTH} levels, holds more than ${MAX_OUTPUT_VALUES} JSON values or is over ${MAX_OUTPUT_BYTES} bytes as JSON. ` +
    'The message names the rule and where; the job is unchanged, so the handler can report again within the bounds.',
  `${OUTPUT_UNSTORABLE}: output holds more than ${MAX_OUTPUT_VALUES} values (an array of 200000 at $.items)`,
);
