import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { ServingState } from './serving-state';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function openConnections(server: Server): Promise<number> {
  return new Promise((r) => server.getConnections((err, count) => r(err ? -1 : count)));
}

/**
 * Drains the API server: not ready at once, still serving for `delayMs` while load balancers take it out of
 * rotation, then it stops accepting and gives in-flight requests up to `timeoutMs`. Idle keep-alive connections
 * close when accepting stops (Node's `server.close()`), busy ones after their response (`Connection: close`, see
 * serving-state.ts); whatever is still open at the deadline is cut. Resolves when no connection is left.
 */
export async function drainServer(
  server: Server,
  serving: ServingState,
  options: { delayMs: number; timeoutMs: number; log: Logger },
): Promise<'drained' | 'cut'> {
  const { log } = options;
  serving.draining = true;
  log.info({ delayMs: options.delayMs }, 'draining: readiness answers 503');
  if (options.delayMs > 0) await sleep(options.delayMs);

  const closed = new Promise<void>((r) => server.close(() => r()));
  log.info({ connections: await openConnections(server) }, 'draining: stopped accepting, finishing in-flight requests');
  let deadline: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    closed.then(() => 'drained' as const),
    new Promise<'cut'>((r) => (deadline = setTimeout(() => r('cut'), options.timeoutMs))),
  ]);
  clearTimeout(deadline);
  if (outcome === 'cut') {
    log.warn(
      { connections: await openConnections(server), timeoutMs: options.timeoutMs },
      'draining: deadline passed, cutting the remaining connections',
    );
    server.closeAllConnections();
    await closed;
  }
  log.info({ outcome }, 'draining: done');
  return outcome;
}
