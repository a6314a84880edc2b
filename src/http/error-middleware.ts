import type { Context, Next } from 'koa';
import {
  ErrorCode,
  ServiceError,
  AssignmentBlockedError,
  MethodNotAllowedError,
  OverloadedError,
  RateLimitedError,
  UnauthenticatedError,
  UnavailableError,
} from '../errors';
import { setRateLimitHeaders } from './rate-limit-headers';
import { classifyFailure } from '../failure-classes';

const STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  conflict: 409,
  unprocessable: 422,
  assignment_blocked: 422,
  rate_limited: 429,
  unavailable: 503,
};

/** Status of errors raised by koa and its body parser for client mistakes (malformed JSON, oversized body). */
function clientStatus(err: unknown): number | undefined {
  const e = (err ?? {}) as { status?: unknown; statusCode?: unknown; expose?: unknown };
  const status = e.status ?? e.statusCode;
  return e.expose && typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/** A dependency that is down is a 503 naming it, never a 500: callers retry, operators see which one. */
function asUnavailable(err: unknown): UnavailableError | undefined {
  const failure = classifyFailure(err);
  if (failure.kind === 'outage') return new UnavailableError(`${failure.dependency} is unavailable; retry later`, { cause: err });
  // Deadlock and serialization victims are retried inside the service (src/db/transaction.ts); this is what is left.
  if (failure.kind === 'contention')
    return new UnavailableError('the request conflicted with concurrent ones; retry it', { cause: err, retryAfterSeconds: 1 });
  return undefined;
}

/** The one place errors become responses: ErrorResponse for everything, AssignBlockedErrorResponse for blocked assignments. */
export function errorMiddleware() {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (caught) {
      const err = caught instanceof ServiceError ? caught : (asUnavailable(caught) ?? caught);
      if (err instanceof AssignmentBlockedError) {
        ctx.status = 422;
        ctx.body = { error: err.message, blocking_services: err.blockingServices };
        return;
      }
      if (err instanceof ServiceError) {
        ctx.status = STATUS[err.code];
        ctx.body = { success: false, message: err.message };
        if (err instanceof MethodNotAllowedError) ctx.set('Allow', err.allowed.join(', '));
        if (err instanceof UnauthenticatedError) ctx.set('WWW-Authenticate', err.challenge);
        if (err instanceof RateLimitedError) {
          setRateLimitHeaders(ctx, err.decision);
          ctx.set('Retry-After', String(err.decision.resetSeconds));
        }
        if (err instanceof OverloadedError) ctx.set('Retry-After', String(err.retryAfterSeconds));
        if (err instanceof UnavailableError) {
          ctx.set('Retry-After', String(err.retryAfterSeconds));
          ctx.state.log?.warn({ err }, 'dependency unavailable');
        } else if (ctx.status >= 500) ctx.state.log?.error({ err }, 'request failed');
        else if (ctx.status === 401) ctx.state.log?.info({ reason: err.message }, 'token rejected');
        return;
      }
      const status = clientStatus(err);
      if (status) {
        ctx.status = status;
        ctx.body = { success: false, message: (err as Error).message };
        return;
      }
      ctx.status = 500;
      ctx.body = { success: false, message: 'internal server error' };
      if (ctx.state.log) ctx.state.log.error({ err }, 'unhandled error');
      else console.error('unhandled error', err);
    }
  };
}
