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
  /** The response body, when `maxBodyBytes` asked for it (an `http` handler's answer). */
  body?: string;
}

export interface SendOptions {
  policy: TargetPolicy;
  /** The whole attempt, connect to last byte. */
  timeoutMs: number;
  /** The TCP (and TLS) connection alone; the whole attempt's deadline when unset. */
  connectTimeoutMs?: number;
  /** Keep the response body, up to this many bytes; a longer one fails the attempt. Unset: the body is discarded. */
  maxBodyBytes?: number;
}

type Outcome = Omit<SendResult, 'latencyMs'>;

/** What an answer's status makes of the attempt: a 2xx succeeds, anything else fails with the status said. */
function outcomeOf(status: number, body: { body?: string }): Outcome {
  if (status >= 200 && status < 300) return { statusCode: status, ...body };
  const error = status >= 300 && status < 400 ? `answered ${status}; redirects are not followed` : `answered ${status}`;
  return { statusCode: status, error, ...body };
}

/** Reads an answer: its body kept up to `keep` bytes when asked, else discarded past MAX_RESPONSE_BYTES. */
function readAnswer(response: http.IncomingMessage, keep: number | undefined, finish: (outcome: Outcome) => void): void {
  let read = 0;
  const chunks: Buffer[] = [];
  response.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (keep !== undefined && read <= keep) chunks.push(chunk);
    if (read > (keep ?? MAX_RESPONSE_BYTES)) response.destroy();
  });
  const done = () => {
    const status = response.statusCode ?? 0;
    if (keep !== undefined && read > keep) return finish({ statusCode: status, error: `answered more than ${keep} bytes` });
    // A body that is kept must be whole: one cut off mid-way is a failed attempt with no answer (retried).
    if (keep !== undefined && !response.complete) return finish({ error: 'the answer was cut off' });
    finish(outcomeOf(status, keep !== undefined ? { body: Buffer.concat(chunks).toString('utf8') } : {}));
  };
  response.on('end', done);
  response.on('close', done);
  response.on('error', done);
}

/**
 * One POST to a webhook receiver. The host is resolved and every address checked here, at send time, and the
 * connection is pinned to the checked addresses (a DNS answer that changes between the check and the connect,
 * "DNS rebinding", cannot redirect it). Redirects are not followed: a 3xx is a failed attempt.
 */
export async function postWebhook(
  target: { url: string; headers: Record<string, string>; body: string },
  options: SendOptions,
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
  const pinned: LookupFunction = (_host, opts, callback) => {
    if (opts?.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  };
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(connectDeadline);
      resolve({ ...result, latencyMs: elapsed() });
    };
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      {
        method: 'POST',
        headers: { ...target.headers, 'content-length': Buffer.byteLength(target.body) },
        lookup: pinned,
        // A connection of its own: a pooled socket would skip the check of this attempt's addresses.
        agent: false,
      },
      (response) => readAnswer(response, options.maxBodyBytes, finish),
    );
    // The whole attempt, connect to last byte, has one deadline.
    const deadline = setTimeout(() => {
      request.destroy();
      finish({ error: `no answer within ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    const connectTimeoutMs = options.connectTimeoutMs ?? options.timeoutMs;
    const connectDeadline = setTimeout(() => {
      request.destroy();
      finish({ error: `no connection within ${connectTimeoutMs} ms` });
    }, connectTimeoutMs);
    request.on('socket', (socket) => {
      const connected = () => clearTimeout(connectDeadline);
      if (!socket.connecting) connected();
      else socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', connected);
    });
    request.on('error', (err) => finish({ error: err.message }));
    request.end(target.body);
  });
}
