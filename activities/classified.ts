import { ApplicationFailure, Context } from '@temporalio/activity';
import { classifyFailure, Dependency } from '../src/failure-classes';
import { RateLimitedError } from '../src/errors';

/**
 * Errors nobody recognizes (a bug, something new) are retried this many times and then fail the activity,
 * as before; outages are retried by the workflow's policy for as long as they last.
 */
export const UNKNOWN_FAILURE_ATTEMPTS = 5;

/** Failure types the workflow history shows; `DependencyUnavailable` is always retried. */
export const DEPENDENCY_UNAVAILABLE = 'DependencyUnavailable';
export const DEPENDENCY_REJECTED = 'DependencyRejected';
/** A step refused by its tenant's job bucket: retried when the next token is due, so it waits and is not lost. */
export const TENANT_RATE_LIMITED = 'TenantRateLimited';

function currentAttempt(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return 1; // called outside an activity (unit tests)
  }
}

/**
 * Turns a failure into what Temporal should do with it: outages and contention are retryable, errors retrying
 * cannot fix are non-retryable at once, unknown ones become non-retryable after UNKNOWN_FAILURE_ATTEMPTS.
 * Failures already decided (ApplicationFailure) pass through.
 */
export function toActivityFailure(err: unknown, via?: Dependency, attempt = currentAttempt()): Error {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof RateLimitedError) {
    return ApplicationFailure.create({
      type: TENANT_RATE_LIMITED,
      message: err.message,
      nextRetryDelay: `${err.decision.resetSeconds} seconds`,
    });
  }
  const failure = classifyFailure(err, via);
  const message = (err as Error)?.message ?? String(err);
  switch (failure.kind) {
    case 'outage':
    case 'contention':
      return ApplicationFailure.create({
        type: DEPENDENCY_UNAVAILABLE,
        message: `${failure.dependency} unavailable: ${failure.reason}`,
        cause: err as Error,
      });
    case 'permanent':
      return ApplicationFailure.create({
        type: DEPENDENCY_REJECTED,
        message: `${failure.dependency} refused: ${failure.reason}`,
        nonRetryable: true,
        cause: err as Error,
      });
    default:
      return attempt >= UNKNOWN_FAILURE_ATTEMPTS
        ? ApplicationFailure.create({ message: `${message} (after ${attempt} attempts)`, nonRetryable: true, cause: err as Error })
        : (err as Error);
  }
}

/** Wraps every activity so its failures are classified in one place. */
// `any[]` as in the SDK's own activity types: each activity keeps its own parameter types through T.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function classifiedActivities<T extends Record<string, (...args: any[]) => Promise<unknown>>>(activities: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(activities)) {
    wrapped[name] = async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (err) {
        throw toActivityFailure(err);
      }
    };
  }
  return wrapped as T;
}
