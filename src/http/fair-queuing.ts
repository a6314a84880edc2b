import type { Context, Next } from 'koa';
import type { AuthConfig, FairQueuingSettings } from '../config';
import type { TokenVerifier } from '../auth/verifier';
import { isJobToken } from '../auth/job-tokens';
import { actorOf, principalFromClaims } from '../auth/principal';
import { tenantAccessProblem } from '../auth/access';
import { OverloadedError } from '../errors';
import type { ServiceMetrics } from '../observability/metrics';
import { FairQueue, Shed } from './fair-queue';

/** The priority levels: each has seats of its own, so a flood of writes never takes the seats reads are served on. */
export const REQUEST_LEVELS = ['reads', 'writes'] as const;
export type RequestLevel = (typeof REQUEST_LEVELS)[number];

/** Routes served outside the queues: probes and scrapes must answer while the API is full. */
function exempt(ctx: Context): boolean {
  return ctx.method === 'OPTIONS' || ctx.path === '/metrics' || ctx.path.startsWith('/v2/health');
}

/** A `?wait=` read holds no work while it waits (a notification wakes it): it takes no seat. */
function longPoll(ctx: Context): boolean {
  const wait = ctx.query.wait;
  return typeof wait === 'string' && wait !== '' && wait !== '0';
}

const TENANT_PATH = /^\/v2\/clients\/([^/]+)/;

/**
 * The request's flow: the tenant of the path when the verified caller reaches it, else the caller. The token is
 * verified here, once: the route's authorization reads the result from `ctx.state.verified` (src/http/auth-middleware.ts).
 * A forged or missing token lands in a flow of its own and is refused by the route as before.
 */
async function flowOf(ctx: Context, deps: { verify: TokenVerifier; auth: AuthConfig }): Promise<string> {
  const match = /^Bearer (\S+)$/.exec(ctx.get('Authorization'));
  if (!match) return 'anonymous';
  const token = match[1];
  if (isJobToken(token)) return 'job-tokens';
  let principal;
  try {
    const claims = await deps.verify(token);
    ctx.state.verified = { token, claims };
    principal = principalFromClaims(claims, deps.auth);
  } catch (error) {
    ctx.state.verified = { token, error };
    return 'unverified';
  }
  if (!principal) return 'unverified';
  const tenant = decoded(TENANT_PATH.exec(ctx.path)?.[1]);
  if (tenant && !tenantAccessProblem(principal, tenant)) return `tenant:${tenant}`;
  return `caller:${actorOf(principal) ?? principal.subject}`;
}

/** A path segment decoded, or undefined when its escapes are not UTF-8: the route answers that request's mistake. */
function decoded(segment: string | undefined): string | undefined {
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * Fair queuing of request handling (docs/fairness.md, "Requests"): reads and writes each have `seats` requests
 * served at once; past that a request waits in its flow's queue (tenant × level) and flows are served in turn.
 * A full queue or a wait past `queueWaitSeconds` is answered 429 with Retry-After.
 */
export function fairQueuing(deps: { settings: FairQueuingSettings; verify: TokenVerifier; auth: AuthConfig; metrics?: ServiceMetrics }) {
  const { settings, metrics } = deps;
  const queues = Object.fromEntries(
    REQUEST_LEVELS.map((level) => [
      level,
      new FairQueue({
        seats: settings.seats,
        queueLength: settings.queueLength,
        totalQueueLength: settings.queueLength * 16,
        maxWaitMs: settings.queueWaitSeconds * 1000,
      }),
    ]),
  ) as Record<RequestLevel, FairQueue>;
  metrics?.watchRequestQueues(() =>
    Object.fromEntries(REQUEST_LEVELS.map((l) => [l, { waiting: queues[l].waiting, inUse: queues[l].inUse }])),
  );
  return async (ctx: Context, next: Next) => {
    if (!settings.enabled || exempt(ctx)) return next();
    const level: RequestLevel = ctx.method === 'GET' || ctx.method === 'HEAD' ? 'reads' : 'writes';
    if (level === 'reads' && longPoll(ctx)) return next();
    const flow = await flowOf(ctx, deps);
    let seat;
    try {
      seat = await queues[level].acquire(flow);
    } catch (err) {
      if (!(err instanceof Shed)) throw err;
      metrics?.requestShed(level, err.reason);
      throw new OverloadedError(
        err.reason === 'queue_full'
          ? `too many ${level} of this caller are waiting (${settings.queueLength}); retry in ${err.retryAfterSeconds} s`
          : `the request waited ${settings.queueWaitSeconds} s for its turn; retry in ${err.retryAfterSeconds} s`,
        err.retryAfterSeconds,
      );
    }
    metrics?.requestQueueWait.observe({ level }, seat.waitedMs / 1000);
    try {
      await next();
    } finally {
      seat.release();
    }
  };
}
