import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { ServiceMetrics } from './metrics';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * The worker's `/metrics`: its own series followed by the Temporal SDK's, read from the SDK's exporter at each
 * scrape. The SDK's exporter is a native HTTP server that cannot share a port with this one; joining the two
 * texts gives Prometheus one target per worker. Their names do not collide (`mos_` and process metrics here,
 * `temporal_` there).
 */
export async function serveWorkerMetrics(options: {
  port: number;
  host?: string;
  metrics: ServiceMetrics;
  sdkUrl?: string;
  log: Logger;
}): Promise<MetricsServer> {
  const { metrics, sdkUrl, log } = options;
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found: the worker serves GET /metrics\n');
      return;
    }
    Promise.all([metrics.scrape(), sdkUrl ? sdkMetrics(sdkUrl) : ''])
      .then(([own, sdk]) => res.writeHead(200, { 'Content-Type': metrics.contentType }).end(`${own}\n${sdk}`))
      .catch((err) => {
        log.error({ err }, 'metrics scrape failed');
        res.writeHead(500, { 'Content-Type': 'text/plain' }).end('scrape failed\n');
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/metrics`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The SDK's text; a comment instead when its exporter does not answer, so the service's series still arrive. */
async function sdkMetrics(url: string): Promise<string> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    if (!res.ok) return `# Temporal SDK metrics unavailable: HTTP ${res.status}\n`;
    return await res.text();
  } catch (err) {
    return `# Temporal SDK metrics unavailable: ${(err as Error).message}\n`;
  }
}
