import { connect, createServer, type Socket } from 'node:net';

/** A loopback TCP load balancer: what the frontends of a Temporal cluster sit behind in production. */
export interface TcpBalancer {
  address: string;
  close(): Promise<void>;
}

/**
 * Spreads connections over `backends` (`host:port`) in turn; a backend that refuses the connection is skipped for the
 * next, so a frontend lost is one the clients' reconnects no longer reach. Bytes pass through untouched (TLS too).
 */
export async function startTcpBalancer(host: string, port: number, backends: string[]): Promise<TcpBalancer> {
  let next = 0;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    track(client);
    client.pause();
    const attempt = (tries: number) => {
      if (tries >= backends.length || client.destroyed) return client.destroy();
      const [backendHost, backendPort] = backends[next++ % backends.length].split(':');
      const upstream = connect(Number(backendPort), backendHost);
      track(upstream);
      // Before the connection is made, an error is a backend that is not there: the next one is tried.
      upstream.once('error', () => {
        upstream.destroy();
        attempt(tries + 1);
      });
      upstream.once('connect', () => {
        upstream.removeAllListeners('error');
        upstream.once('error', () => client.destroy());
        client.once('error', () => upstream.destroy());
        client.once('close', () => upstream.destroy());
        upstream.once('close', () => client.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    attempt(0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as { port: number }).port;
  return {
    address: `${host}:${bound}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
