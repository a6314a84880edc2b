/**
 * The one place that decides what a failure from a dependency means: wait it out, retry at once, or give up.
 * Activities (activities/classified.ts) and the HTTP error middleware both ask here, so an outage is
 * retried by the worker and answered 503 by the API, and only errors retrying cannot fix fail a job.
 */

export type Dependency = 'Postgres' | 'Temporal' | 'AWS' | 'the identity provider';

export type FailureClass =
  /** The dependency is down, restarting, overloaded or unreachable: retry with backoff, however long it takes. */
  | { kind: 'outage'; dependency: Dependency; reason: string }
  /** Postgres chose this transaction as a deadlock or serialization victim: run it again at once. */
  | { kind: 'contention'; dependency: 'Postgres'; reason: string }
  /** The same request would fail the same way every time (missing Lambda function, invalid payload, no access). */
  | { kind: 'permanent'; dependency: Dependency; reason: string }
  /** Not a dependency failure we recognize: a bug or something new. */
  | { kind: 'unknown' };

/** Socket-level failures: the peer is down, restarting or unreachable. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ECONNABORTED',
  'ENOTCONN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** SQLSTATEs of an unavailable or overloaded server; class 08 (connection exception) is matched by prefix. */
const PG_OUTAGE_STATES = new Set([
  '57P01', // admin_shutdown: the server is shutting down
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or in recovery
  '57P05', // idle_session_timeout
  '53000',
  '53100',
  '53200',
  '53300',
  '53400', // insufficient resources, too many connections
  '58000',
  '58030', // system_error, io_error
  '55P03', // lock_not_available (lock_timeout)
  '57014', // query_canceled (statement_timeout)
]);
const PG_CONTENTION_STATES = new Set(['40001', '40P01']);

/** Messages of pg and knex when the connection is gone or cannot be had (they carry no code). */
const PG_CONNECTION_MESSAGES = [
  /Connection terminated/i,
  /timeout expired/i,
  /Timeout acquiring a connection/i,
  /is not queryable/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /server closed the connection unexpectedly/i,
];

const AWS_THROTTLING =
  /Throttl|TooManyRequests|RequestLimitExceeded|SlowDown|ProvisionedThroughputExceeded|EC2ThrottledException|RequestThrottled|PriorRequestNotComplete/i;
/** Lambda and ECS errors that clear by themselves: a function being updated, capacity, a service hiccup. */
const AWS_PASSING =
  /ResourceConflict|ResourceNotReady|ServiceException|ServerException|ServiceUnavailable|InternalFailure|EC2Unexpected|ENILimitReached|SubnetIPAddressLimitReached|TimeoutError|RequestTimeout/i;

/** The fields pg, knex, Node's sockets and the AWS SDK put on their errors; every one may be missing. */
interface ErrorFields {
  code?: unknown;
  name?: unknown;
  Code?: unknown;
  message?: unknown;
  cause?: unknown;
  $metadata?: { httpStatusCode?: number };
  $fault?: unknown;
  $retryable?: unknown;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
const causeCode = (err: ErrorFields): unknown => (err.cause && typeof err.cause === 'object' ? (err.cause as ErrorFields).code : undefined);

function sqlState(err: ErrorFields): string | undefined {
  return typeof err.code === 'string' && /^[0-9A-Z]{5}$/.test(err.code) ? err.code : undefined;
}

function isAwsError(err: ErrorFields): boolean {
  return Boolean(err.$metadata) || err.$fault === 'client' || err.$fault === 'server';
}

function classifyAws(err: ErrorFields): FailureClass {
  const name = text(err.name ?? err.Code);
  const reason = `${name}: ${text(err.message)}`.trim();
  const status = err.$metadata?.httpStatusCode;
  if (AWS_THROTTLING.test(name) || status === 429) return { kind: 'outage', dependency: 'AWS', reason };
  if (err.$fault === 'server' || Boolean(err.$retryable) || (status !== undefined && status >= 500) || AWS_PASSING.test(name)) {
    return { kind: 'outage', dependency: 'AWS', reason };
  }
  if (status !== undefined) return { kind: 'permanent', dependency: 'AWS', reason };
  // No HTTP answer at all: the endpoint was not reached, or the SDK refused the request itself.
  return isNetworkError(err) ? { kind: 'outage', dependency: 'AWS', reason } : { kind: 'unknown' };
}

function isNetworkError(err: ErrorFields): boolean {
  return (
    NETWORK_CODES.has(text(err.code)) ||
    NETWORK_CODES.has(text(causeCode(err))) ||
    /socket hang up|TimeoutError/i.test(`${text(err.name)} ${text(err.message)}`)
  );
}

/** gRPC codes of a Temporal frontend that is down, restarting, overloaded or slow to answer. */
const GRPC_OUTAGE_CODES = new Set([
  1 /* CANCELLED */, 4 /* DEADLINE_EXCEEDED */, 8 /* RESOURCE_EXHAUSTED */, 10 /* ABORTED */, 13 /* INTERNAL */, 14 /* UNAVAILABLE */,
]);

interface GrpcFields {
  code: number;
  details: string;
  message: string;
}

/** A gRPC status error, recognised by its shape as the SDK's own `isGrpcServiceError` does. */
function asGrpcError(err: unknown): GrpcFields | undefined {
  const e = err as Partial<GrpcFields> & { metadata?: unknown };
  return err instanceof Error && typeof e.details === 'string' && typeof e.code === 'number' && typeof e.metadata === 'object' && e.metadata
    ? (e as GrpcFields)
    : undefined;
}

/**
 * Whether the error is of one of the Temporal client's error classes, by the marker the SDK puts on them for its
 * cross-realm `instanceof` (`SymbolBasedInstanceOfError`): this module, which the repositories load, stays SDK-free.
 */
function isTemporalError(err: unknown, className: 'ServiceError' | 'WorkflowUpdateRPCTimeoutOrCancelledError'): boolean {
  return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[Symbol.for(`__temporal_is${className}`)] === true;
}

function classifyTemporal(err: ErrorFields): FailureClass | undefined {
  const grpc = asGrpcError(err) ?? asGrpcError(err.cause);
  if (grpc) {
    return GRPC_OUTAGE_CODES.has(grpc.code) ? { kind: 'outage', dependency: 'Temporal', reason: grpc.details || grpc.message } : undefined;
  }
  if (isTemporalError(err, 'WorkflowUpdateRPCTimeoutOrCancelledError') || isTemporalError(err, 'ServiceError')) {
    return { kind: 'outage', dependency: 'Temporal', reason: text(err.message) };
  }
  return undefined;
}

/**
 * Classifies an error thrown by knex/pg, the Temporal client or the AWS SDK. `via` names the dependency the
 * caller was talking to, for bare socket errors that do not say where they come from (Postgres by default).
 */
export function classifyFailure(err: unknown, via?: Dependency): FailureClass {
  if (!err || typeof err !== 'object') return { kind: 'unknown' };
  const e = err as ErrorFields;
  if (isAwsError(e) || via === 'AWS') return classifyAws(e);
  const temporal = classifyTemporal(e);
  if (temporal) return temporal;

  const state = sqlState(e);
  if (state && PG_CONTENTION_STATES.has(state))
    return { kind: 'contention', dependency: 'Postgres', reason: `${state} ${text(e.message)}` };
  if (state && (PG_OUTAGE_STATES.has(state) || state.startsWith('08')))
    return { kind: 'outage', dependency: 'Postgres', reason: `${state} ${text(e.message)}` };
  if (e.name === 'KnexTimeoutError' || PG_CONNECTION_MESSAGES.some((re) => re.test(text(e.message)))) {
    return { kind: 'outage', dependency: 'Postgres', reason: text(e.message) };
  }
  // A bare socket error: pg and knex pass connect failures through unwrapped.
  if (isNetworkError(e)) {
    return { kind: 'outage', dependency: via ?? 'Postgres', reason: text(e.message) };
  }
  return { kind: 'unknown' };
}
