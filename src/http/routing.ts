import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { canonicalJson } from '../canonical-json';
import Router from '@koa/router';
import { operation, koaPath, OPERATIONS } from '../openapi/operations';
import type { RequestValidator } from './request-validator';
import type { TokenVerifier } from '../auth/verifier';
import type { AuthConfig } from '../config';
import type { JobTokens } from '../auth/job-tokens';
import { authorize } from './auth-middleware';
import { pageRequest } from '../paging';
import { InvalidInputError, MethodNotAllowedError, NotFoundError, type LimitDecision } from '../errors';
import type { JobRequestContext } from '../domain/jobs';
import type { ChangeContext } from '../domain/common';
import { actorOf } from '../auth/principal';
import { visibleTenants } from '../auth/access';
import type { OperationId, PathParams, QueryParams, RequestBody, ResponseBody } from '../openapi/types';
import type { Admission } from '../domain/jobs';
import { setRateLimitHeaders } from './rate-limit-headers';

export interface RoutingDeps {
  validator: RequestValidator;
  verify: TokenVerifier;
  auth: AuthConfig;
  /** Verifies the job-scoped completion tokens handlers receive with each dispatch; none: such tokens are refused. */
  jobTokens?: JobTokens;
  /** The per-caller request bucket, taken after the caller is known and before anything else. */
  admission?: Pick<Admission, 'request'>;
}

export interface RouteContext<O extends OperationId = OperationId> {
  ctx: Context;
  params: PathParams<O>;
  /** The body, validated against the operation's request schema. */
  body: RequestBody<O>;
  query: QueryParams<O>;
}

/**
 * Registers a handler for an operation of the table: authorization, path and body validation come from
 * the table, so a handler only calls its service. Handlers return the body, typed as the document's success answer
 * of the operation (a field or value the document lacks does not compile); `status` defaults to the table's.
 */
export function createRouteRegistrar(router: Router, deps: RoutingDeps) {
  return <O extends OperationId>(opId: O, handler: (r: RouteContext<O>) => Promise<ResponseBody<O> | void>) => {
    const op = operation(opId);
    const method = op.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    router[method](op.id, koaPath(op.path), authorize(op, deps), async (ctx: Context) => {
      if (op.permission !== 'public' && deps.admission) {
        const decision = await deps.admission.request(ctx.state.principal);
        if (decision) setRateLimitHeaders(ctx, decision);
      }
      deps.validator.params(ctx.params as Record<string, string>);
      const body = op.body ? deps.validator.body(op.body, ctx.request.body) : undefined;
      const query = deps.validator.query(op, ctx.query);
      ctx.status = op.status;
      // The validator has checked what these casts claim: params against their patterns, the body and query against their schemas.
      const result = await handler({
        ctx,
        params: ctx.params as PathParams<O>,
        body: body as RequestBody<O>,
        query: query as QueryParams<O>,
      });
      if (ctx.body === undefined) ctx.body = result;
    });
  };
}

export function page(r: { query: { limit?: number; cursor?: string } }) {
  return pageRequest(r.query);
}

/** The tenant a route's path names, if any. */
function tenantOf(params: object): string | undefined {
  const id = (params as { client_id?: unknown }).client_id;
  return typeof id === 'string' ? id : undefined;
}

export function jobContext(r: RouteContext, opId: OperationId): JobRequestContext {
  const key = r.ctx.get('Idempotency-Key') || undefined;
  if (key && (key.length > 200 || !/^[\x21-\x7e]+$/.test(key)))
    throw new InvalidInputError('Idempotency-Key must be 1-200 visible ASCII characters');
  const fingerprint = key
    ? createHash('sha256')
        .update(canonicalJson({ params: r.params, body: r.body ?? null }))
        .digest('hex')
    : undefined;
  return {
    principal: r.ctx.state.principal,
    idempotencyKey: key,
    fingerprint,
    operation: opId,
    tenant: tenantOf(r.params),
  };
}

/** A started job's answer: the tenant bucket's decision on it as RateLimit headers, the job as the body. */
export function answerStarted<T>(r: RouteContext, started: { accepted: T; admission?: LimitDecision }): T {
  if (started.admission) setRateLimitHeaders(r.ctx, started.admission);
  return started.accepted;
}

const matchers = OPERATIONS.map((op) => ({ op, regex: new RegExp(`^${koaPath(op.path).replace(/:[a-z_]+/g, '[^/]+')}/?$`) }));

/** The methods the operation table declares for a concrete path (empty for an unknown path). */
export function methodsOf(path: string): string[] {
  return [...new Set(matchers.filter((m) => m.regex.test(path)).map((m) => m.op.method))];
}

/** After the router: a known path with another method is a 405, anything else a 404, both as ErrorResponse. */
export function notFoundOrMethodNotAllowed() {
  return async (ctx: Context) => {
    const allowed = matchers.filter((m) => m.regex.test(ctx.path)).map((m) => m.op.method);
    if (allowed.length) throw new MethodNotAllowedError([...new Set(allowed)]);
    throw new NotFoundError(`no route ${ctx.method} ${ctx.path}`);
  };
}

/** The caller (for audit fields) and `?dry_run=true` (validated as a boolean) of a change. */
export function changeContext(r: { ctx: Context; query: { dry_run?: boolean } }): ChangeContext {
  const principal = r.ctx.state.principal;
  return {
    actor: actorOf(principal),
    dryRun: r.query.dry_run === true,
    visibleTenants: visibleTenants(principal),
  };
}
