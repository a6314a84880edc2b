import type { Context, Next } from 'koa';
import type { ServiceMetrics } from '../observability/metrics';

/**
 * The route template in OpenAPI form (`/v2/models/{model_id}`), or `unmatched` for paths no route declares:
 * raw paths carry ids, and one series per id would grow without bound.
 */
export function routeTemplate(ctx: Context): string {
  const matched = (ctx as Context & { _matchedRoute?: unknown })._matchedRoute;
  return typeof matched === 'string' ? matched.replace(/:([a-z_]+)/g, '{$1}') : 'unmatched';
}

/** Request duration by route template, method and final status (after error mapping), and requests in flight. */
export function httpMetrics(metrics: ServiceMetrics) {
  return async (ctx: Context, next: Next) => {
    const stop = metrics.httpDuration.startTimer();
    metrics.httpInFlight.inc();
    try {
      await next();
    } finally {
      metrics.httpInFlight.dec();
      stop({ route: routeTemplate(ctx), method: ctx.method, status: String(ctx.status) });
    }
  };
}
