import { trace } from '@opentelemetry/api';
import type { Context, Next } from 'koa';
import { routeTemplate } from './metrics-middleware';

/**
 * Names the HTTP server span (started by the HTTP instrumentation, which honours an incoming `traceparent`)
 * after the route template, the name tracing backends group by, and tags it with the request id. Without
 * tracing there is no active span and this does nothing.
 */
export function traceRequests() {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } finally {
      const span = trace.getActiveSpan();
      if (span) {
        const route = routeTemplate(ctx);
        span.updateName(`${ctx.method} ${route}`);
        span.setAttribute('http.route', route);
        if (ctx.state.requestId) span.setAttribute('mos.request_id', ctx.state.requestId);
      }
    }
  };
}
