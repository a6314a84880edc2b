import { spawn, ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Toxiproxy, Proxy } from 'toxiproxy-node-client';
import { freePort } from '../../src/dev/temporal/dev-server';
import { projectRoot } from '../../src/paths';

/** One dependency behind Toxiproxy: point the service at `url`/`address`, then cut, slow or restore it. */
export class FaultyLink {
  private readonly toxics = new Set<string>();
  constructor(
    private proxy: Proxy,
    readonly address: string,
  ) {}

  /** Refuses new connections and drops open ones, like a dependency that went down. */
  async cut(): Promise<void> {
    this.proxy = await this.proxy.update({ enabled: false, listen: this.proxy.listen, upstream: this.proxy.upstream });
  }

  async restore(): Promise<void> {
    // Dropping open connections first: removing a toxic from a connection it holds waits for that connection.
    if (this.toxics.size) await this.cut();
    for (const name of this.toxics) await (await this.proxy.getToxic(name)).remove();
    this.toxics.clear();
    this.proxy = await this.proxy.update({ enabled: true, listen: this.proxy.listen, upstream: this.proxy.upstream });
  }

  /** Lets the answer's first bytes through at once and the rest at `kbPerSecond`: a response that stalls after its headers. */
  async throttle(kbPerSecond: number): Promise<void> {
    await this.proxy.addToxic({
      name: 'throttle',
      type: 'bandwidth',
      stream: 'downstream',
      toxicity: 1,
      attributes: { rate: kbPerSecond },
    });
    this.toxics.add('throttle');
  }

  /** Holds every byte until restored: connections open, nothing answers. */
  async stall(): Promise<void> {
    await this.proxy.addToxic({ name: 'stall', type: 'timeout', stream: 'downstream', toxicity: 1, attributes: { timeout: 0 } });
    this.toxics.add('stall');
  }

  /** `host:port` replaced by the proxy's in a URL. */
  url(upstreamUrl: string): string {
    const url = new URL(upstreamUrl);
    url.host = this.address;
    return url.toString();
  }
}

/** A toxiproxy-server of the test file's own (built by `npm run setup:toxiproxy`), stopped with `stop()`. */
export class FaultProxy {
  private constructor(
    private readonly child: ChildProcess,
    private readonly client: Toxiproxy,
  ) {}

  static async start(): Promise<FaultProxy> {
    const binary = process.env.TOXIPROXY_SERVER ?? path.join(projectRoot(), '.tools/bin/toxiproxy-server');
    if (!existsSync(binary)) throw new Error('toxiproxy-server not found: run `npm run setup:toxiproxy`');
    const port = await freePort();
    const child = spawn(binary, ['-host', '127.0.0.1', '-port', String(port)], { stdio: 'ignore' });
    const client = new Toxiproxy(`http://127.0.0.1:${port}`);
    const deadline = Date.now() + 10000;
    for (;;) {
      try {
        await client.getVersion();
        return new FaultProxy(child, client);
      } catch (err) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`toxiproxy-server did not start: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** A proxy to `upstream` (`host:port`) on a free local port. */
  async link(name: string, upstream: string): Promise<FaultyLink> {
    const listen = `127.0.0.1:${await freePort()}`;
    return new FaultyLink(await this.client.createProxy({ name, listen, upstream }), listen);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}

/** `host:port` of a URL, as Toxiproxy names an upstream. */
export function hostPort(url: string): string {
  const { hostname, port, protocol } = new URL(url);
  return `${hostname}:${port || (protocol === 'https:' ? 443 : protocol.startsWith('postgres') ? 5432 : 80)}`;
}
