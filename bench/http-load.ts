import http from 'node:http';
import { performance } from 'node:perf_hooks';

/** A lean keep-alive HTTP client for the load rounds, the same for the service and the bare handler. */
export function httpCaller(connections: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  return (method: string, url: string, token: string, body?: unknown): Promise<{ status: number; body: string; retryAfter?: string }> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(
        url,
        {
          method,
          agent,
          headers: {
            Authorization: `Bearer ${token}`,
            ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), retryAfter: res.headers['retry-after'] }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export interface LoadResult {
  wall: number;
  perSecond: number;
  p50: number;
  p99: number;
}

/** Runs `total` calls of `fn` with `concurrency` in flight; per-call latencies (ms) and the wall time. */
export async function load(total: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        await fn(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const wall = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return { wall, perSecond: (total / wall) * 1000, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
