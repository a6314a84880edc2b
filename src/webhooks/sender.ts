import http from 'node:http';
import https from 'node:https';
import type { LookupAddress } from 'node:dns';
import { checkUrl, resolveTarget, TargetPolicy, TargetRefused } from './target-policy';
import type { LookupFunction } from 'node:net';

/** Longest response body read from a receiver; the rest is discarded (only the status matters). */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendResult {
  /** Absent when no response came (refused target, connection error, time-out). */
  statusCode?: number;
  latencyMs: number;
  /** Why the attempt failed; absent on a 2xx. */
  error?: string;
  /** The target was refused by the safety rules: retrying does not help. */
  refused?: boolean;
}

/**
 * One POST to a webhook receiver. The host is resolved and every address checked here, at send time, and the
 * connection is pinned to the checked addresses (a DNS answer that changes between the check and the connect,
 * "DNS rebinding", cannot redirect it). Redirects are not followed: a 3xx is a failed attempt.
 */
export async function postWebhook(
  target: { url: string; headers: Record<string, string>; body: string },
  options: { policy: TargetPolicy; timeoutMs: number },
): Promise<SendResult> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  let url: URL;
  let addresses: LookupAddress[];
  try {
    url = checkUrl(target.url, options.policy);
    addresses = await resolveTarget(url.hostname, options.policy, Math.min(5000, options.timeoutMs));
  } catch (err) {
    return { latencyMs: elapsed(), error: (err as Error).message, refused: err instanceof TargetRefused };
  }
  // The signature of dns.lookup, answered with the addresses this attempt checked.
  const pinned = (_host: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (opts?.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  };
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...result, latencyMs: elapsed() });
    };
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      {
        method: 'POST',
        headers: { ...target.headers, 'content-length': Buffer.byteLength(target.body) },
        // dns.lookup's overloads (with and without `all`) cannot be written as one function type; `pinned` answers both.
        lookup: pinned as unknown as LookupFunction,
        // A connection of its own: a pooled socket would skip the check of this attempt's addresses.
        agent: false,
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) response.destroy();
        });
        const done = () => {
          const status = response.statusCode ?? 0;
          finish(
            status >= 200 && status < 300
              ? { statusCode: status }
              : {
                  statusCode: status,
                  error: status >= 300 && status < 400 ? `answered ${status}; redirects are not followed` : `answered ${status}`,
                },
          );
        };
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      },
    );
    // The whole attempt, connect to last byte, has one deadline.
    const deadline = setTimeout(() => {
      request.destroy();
      finish({ error: `no answer within ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    request.on('error', (err) => finish({ error: err.message }));
    request.end(target.body);
  });
}
