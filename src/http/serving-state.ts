import type { Context, Next } from 'koa';

/**
 * Whether the API is draining: set once a shutdown starts, read by the readiness route and by the middleware
 * below. One instance per app, passed in; nothing global.
 */
export class ServingState {
  draining = false;
}

/**
 * While draining, every response asks the client to close its connection, so keep-alive sockets do not carry
 * new requests to a server that is about to stop accepting them.
 */
export function closeConnectionsWhileDraining(state: ServingState) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } finally {
      if (state.draining) ctx.set('Connection', 'close');
    }
  };
}
