import type { Logger } from 'pino';
import type { JWTPayload } from 'jose';
import type { Principal } from '../auth/principal';

// What the middleware chain puts on ctx.state, typed for every handler: the request id and its logger
// (request-context.ts) and, on protected routes, the caller (auth-middleware.ts).
declare module 'koa' {
  interface DefaultState {
    requestId?: string;
    log?: Logger;
    principal: Principal;
    /** The bearer token as the fair queue verified it (fair-queuing.ts), so authorization does not verify it again. */
    verified?: { token: string; claims?: JWTPayload; error?: unknown };
  }
}
