import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import type { JWK } from 'jose';

/** An identity provider's JWKS endpoint: serves the keys it is given and counts the fetches. */
export class JwksServer {
  fetches = 0;
  private constructor(
    private readonly server: Server,
    readonly url: string,
    private keys: JWK[],
    private readonly padding: string,
  ) {}

  /** `paddingBytes` makes the answer that much larger, so a throttled link delivers its body slowly. */
  static async start(keys: JWK[], paddingBytes = 0): Promise<JwksServer> {
    let self: JwksServer;
    const server = createServer((req, res) => {
      self.fetches++;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ keys: self.keys, ...(self.padding ? { padding: self.padding } : {}) }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    self = new JwksServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`, keys, 'x'.repeat(paddingBytes));
    return self;
  }

  /** Publishes another key set, as an IdP does when it rotates keys. */
  publish(keys: JWK[]): void {
    this.keys = keys;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}
