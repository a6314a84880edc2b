import koaCors from '@koa/cors';
import type { Context, Middleware, Next } from 'koa';

const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Request-Id';
const EXPOSED_HEADERS = 'X-Request-Id, WWW-Authenticate, Allow';

/**
 * CORS for the origins in CORS_ALLOWED_ORIGINS (none: off, so browsers on other origins stay refused).
 * Preflights (`OPTIONS` with Access-Control-Request-Method) on a known path are answered here with 204;
 * `methodsOf` says which methods a path has, so the answer never promises a route that does not exist.
 */
export function cors(allowedOrigins: string[], methodsOf: (path: string) => string[]): Middleware {
  const anyOrigin = allowedOrigins.includes('*');
  // The request's own origin when it is allowed; '' makes @koa/cors add no CORS header, so the browser refuses.
  const origin = (ctx: Context) => {
    const requested = ctx.get('Origin');
    return requested && (anyOrigin || allowedOrigins.includes(requested)) ? requested : '';
  };
  const options = { origin, allowHeaders: ALLOWED_HEADERS, exposeHeaders: EXPOSED_HEADERS, maxAge: 600 };
  const answers = koaCors(options);
  // One preflight answer per set of methods a path has: the paths share a handful of them.
  const preflights = new Map<string, Middleware>();
  const preflightFor = (methods: string) => {
    let middleware = preflights.get(methods);
    if (!middleware) preflights.set(methods, (middleware = koaCors({ ...options, allowMethods: methods })));
    return middleware;
  };

  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'OPTIONS') return answers(ctx, next);
    const methods = methodsOf(ctx.path);
    // An unknown path gets no preflight answer: the router's 404 follows.
    if (!methods.length) return next();
    return preflightFor(methods.join(', '))(ctx, next);
  };
}
