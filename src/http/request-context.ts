import { randomUUID } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { InvalidInputError } from '../errors';
import { jsonProblem, textProblem } from './json-guard';

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The trace id of an incoming `traceparent` when tracing is off, so the logs still join the caller's trace;
 * with tracing on, the logger's mixin adds the ids of the active span instead.
 */
function incomingTraceId(ctx: Context): string | undefined {
  if (trace.getActiveSpan()) return undefined;
  return TRACEPARENT.exec(ctx.get('traceparent'))?.[1];
}

/** A request id (taken from X-Request-Id when sane), a child logger, and one access log line per request. */
export function requestContext(log: Logger) {
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.get('X-Request-Id');
    const requestId = /^[A-Za-z0-9._-]{1,100}$/.test(incoming) ? incoming : randomUUID();
    ctx.set('X-Request-Id', requestId);
    ctx.state.requestId = requestId;
    const traceId = incomingTraceId(ctx);
    ctx.state.log = log.child(traceId ? { requestId, trace_id: traceId } : { requestId });
    const started = performance.now();
    try {
      await next();
    } finally {
      ctx.state.log.info(
        {
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round(performance.now() - started),
          principal: ctx.state.principal?.subject,
        },
        'request',
      );
    }
  };
}

/** JSON only: a request with a body must declare application/json. */
export function requireJsonBody() {
  return async (ctx: Context, next: Next) => {
    const hasBody = Number(ctx.get('Content-Length') || 0) > 0 || Boolean(ctx.get('Transfer-Encoding'));
    if (hasBody && !ctx.is('application/json')) {
      throw new InvalidInputError('request body must be JSON with Content-Type: application/json');
    }
    return next();
  };
}

/** After body parsing: the body's depth and text, and every query value, checked before any handler runs. */
export function guardInput() {
  return async (ctx: Context, next: Next) => {
    for (const [name, raw] of Object.entries(ctx.query)) {
      const problem = textProblem(name) ?? [raw ?? []].flat().map(textProblem).find(Boolean);
      if (problem) throw new InvalidInputError(`query parameter ${textProblem(name) ? '(name)' : name} ${problem}`);
    }
    const body = (ctx.request as { body?: unknown }).body;
    if (body !== undefined) {
      const problem = jsonProblem(body);
      if (problem) throw new InvalidInputError(`invalid request body: ${problem}`);
    }
    return next();
  };
}
