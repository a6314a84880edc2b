import { context, trace } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import type { Context, Next } from 'koa';
import { routeTemplate } from './metrics-middleware';

/**
 * Names the HTTP server span (started by the HTTP instrumentation, which honours an incoming `traceparent`)
 * after the route template in OpenAPI form, the name tracing backends group by, and tags it with the request id.
 * The HTTP instrumentation names its span from the RPC metadata's route when the response ends, after the Koa
 * instrumentation wrote the Koa form (`:model_id`) there; this sets it last. Without tracing there is no span
 * and this does nothing.
 */
export function traceRequests() {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } finally {
      const span = trace.getActiveSpan();
      if (span) {
        const route = routeTemplate(ctx);
        const rpc = getRPCMetadata(context.active());
        if (rpc?.type === RPCType.HTTP) rpc.route = route;
        span.updateName(`${ctx.method} ${route}`);
        span.setAttribute('http.route', route);
        if (ctx.state.requestId) span.setAttribute('mos.request_id', ctx.state.requestId);
      }
    }
  };
}
