import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { HttpLimits } from '../config';

/**
 * The API's HTTP server. A client that sends its headers or body slowly (1 byte a second) held a socket until
 * Node's 300 s default: past these limits it gets a 408 and the connection is closed. The limits cover receiving
 * the request only, so a `?wait=60` read or a completion waiting for its workflow is not cut.
 */
export function createHttpServer(
  app: { callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void> },
  limits: HttpLimits,
): Server {
  // Koa's handler answers every error itself; its promise carries nothing for the server.
  const handle = app.callback();
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutSeconds * 1000,
      requestTimeout: limits.requestTimeoutSeconds * 1000,
      // Node checks the deadlines on this interval (30 s by default, which would let a slow client run 30 s over).
      connectionsCheckingInterval: 1000,
    },
    (req, res) => void handle(req, res),
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutSeconds * 1000;
  return server;
}
