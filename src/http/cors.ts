import type { Context, Next } from 'koa';

const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Request-Id';
const EXPOSED_HEADERS = 'X-Request-Id, WWW-Authenticate, Allow';

/**
 * CORS for the origins in CORS_ALLOWED_ORIGINS (none: off, so browsers on other origins stay refused).
 * Preflights (`OPTIONS` with Access-Control-Request-Method) on a known path are answered here with 204;
 * `methodsOf` says which methods a path has, so the answer never promises a route that does not exist.
 */
export function cors(allowedOrigins: string[], methodsOf: (path: string) => string[]) {
  const anyOrigin = allowedOrigins.includes('*');
  return async (ctx: Context, next: Next) => {
    const origin = ctx.get('Origin');
    const allowed = Boolean(origin) && (anyOrigin || allowedOrigins.includes(origin));
    if (!allowed) return next();
    ctx.vary('Origin');
    ctx.set('Access-Control-Allow-Origin', origin);
    const methods = methodsOf(ctx.path);
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') && methods.length) {
      ctx.set('Access-Control-Allow-Methods', methods.join(', '));
      ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    return next();
  };
}
