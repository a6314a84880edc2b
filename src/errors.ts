/** The service's error classes; src/http/error-middleware.ts maps each code to a status and a body. */
export type ErrorCode =
  | 'invalid_input'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'conflict'
  | 'unprocessable'
  | 'assignment_blocked'
  | 'rate_limited'
  | 'unavailable';

export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class InvalidInputError extends ServiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_input', message, options);
  }
}
export class UnauthenticatedError extends ServiceError {
  /** The WWW-Authenticate challenge (RFC 6750): `Bearer` alone when no credentials were sent. */
  readonly challenge: string;
  constructor(message = 'missing or invalid bearer token', options?: { cause?: unknown; challenge?: string }) {
    super('unauthenticated', message, options);
    this.challenge = options?.challenge ?? `Bearer error="invalid_token", error_description="${message.replace(/["\\]/g, '')}"`;
  }
}
export class PayloadTooLargeError extends ServiceError {
  constructor(message: string) {
    super('payload_too_large', message);
  }
}
export class ForbiddenError extends ServiceError {
  constructor(message: string) {
    super('forbidden', message);
  }
}
export class NotFoundError extends ServiceError {
  constructor(message: string) {
    super('not_found', message);
  }
}
export class MethodNotAllowedError extends ServiceError {
  constructor(readonly allowed: string[]) {
    super('method_not_allowed', `method not allowed; allowed: ${allowed.join(', ')}`);
  }
}
export class ConflictError extends ServiceError {
  constructor(message: string) {
    super('conflict', message);
  }
}
export class UnprocessableError extends ServiceError {
  constructor(message: string) {
    super('unprocessable', message);
  }
}
/** A dependency is down or a wait ran out: 503 with Retry-After, the message naming what to wait for. */
export class UnavailableError extends ServiceError {
  readonly retryAfterSeconds: number;
  constructor(message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super('unavailable', message, options);
    this.retryAfterSeconds = options?.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
  }
}

/**
 * The API is serving all it can and the caller's queue is full or its wait ran out (src/http/fair-queuing.ts): 429
 * with Retry-After, like a limit, since the caller's own requests are what fills its queue.
 */
export class OverloadedError extends ServiceError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('rate_limited', message);
  }
}

/** One token-bucket decision, for the 429 and the RateLimit-Policy / RateLimit headers. */
export interface LimitDecision {
  /** The policy: `jobs` (job starts per tenant) or `requests` (requests per caller). */
  policy: 'jobs' | 'requests';
  /** Whose bucket: `tenant acme`, `caller client:acme`. */
  holder: string;
  allowed: boolean;
  /** Whole tokens left. */
  remaining: number;
  /** Seconds until the next token (when none is left) or until the bucket is full. */
  resetSeconds: number;
  rate: number;
  burst: number;
}

/** A token bucket is empty: 429 with Retry-After and the RateLimit headers, the message naming the limit. */
export class RateLimitedError extends ServiceError {
  /** `needed`: the tokens the request asked for at once (a backfill's fires), when more than one. */
  constructor(
    readonly decision: LimitDecision,
    needed?: { count: number; what: string },
  ) {
    const limit = decision.policy === 'jobs' ? 'jobs_per_second' : 'requests_per_second';
    const asked = needed ? `${needed.what} starts ${needed.count} jobs and ${decision.remaining} fit now; ` : '';
    super(
      'rate_limited',
      `${limit} exceeded for ${decision.holder}: ${asked}${decision.rate} per second with a burst of ${decision.burst}; retry in ${decision.resetSeconds} s`,
    );
  }
}

/** What a 503 tells callers to wait when nothing better is known: long enough for a restart, short enough to notice the end of an outage. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

export interface BlockingService {
  service_id: string;
  feature: string;
  value: unknown;
}

/** A domain default assignment refused because deployed services do not satisfy the target version's freeze. */
export class AssignmentBlockedError extends ServiceError {
  constructor(
    message: string,
    readonly blockingServices: BlockingService[],
  ) {
    super('assignment_blocked', message);
  }
}
