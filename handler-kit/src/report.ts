import type { Job } from './job';

/** What a handler reports: the completion route's body (CompleteJobRequest). */
export type Report = { status: 'success'; output: Record<string, unknown> } | { status: 'failure'; error: { message: string } };

export interface ReportOptions {
  /** A bearer token for jobs whose payload carries no job token (an identity-provider token with scope complete_job). */
  token?: () => string | Promise<string>;
  /** How long to keep retrying through outages before giving up (default 15 minutes). */
  maxElapsedMs?: number;
  /** First wait between attempts when the service names none (default 500 ms, doubling up to `maxDelayMs`). */
  initialDelayMs?: number;
  maxDelayMs?: number;
  fetch?: typeof fetch;
  log?: (message: string, fields: Record<string, unknown>) => void;
}

/** The service's final answer to a report. `conflict`: the job was already final (cancelled, timed out, reported otherwise). */
export type ReportOutcome = { kind: 'recorded'; status: number; body: unknown } | { kind: 'conflict'; message: string };

/** The service refused the report for a reason retrying cannot change (400, 401, 403, 404, 422). */
export class CompletionRefused extends Error {
  override name = 'CompletionRefused';
}

/** Answers worth waiting out: the service, its database or Temporal away, or the caller throttled. */
const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retry-After in seconds or as an HTTP date, in milliseconds; undefined when absent or unreadable. */
function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

/**
 * POSTs the report to the job's completion URL with its job token, retrying network errors and 408/429/5xx (waiting
 * what Retry-After says, else backing off with jitter) until `maxElapsedMs`. A repeated report is answered like the
 * first (the service is idempotent), so a retry after a lost answer is safe. Other 4xx are thrown: retrying cannot help.
 */
export async function reportCompletion(job: Job, report: Report, options: ReportOptions = {}): Promise<ReportOutcome> {
  const send = options.fetch ?? fetch;
  const started = Date.now();
  const maxElapsed = options.maxElapsedMs ?? 15 * 60_000;
  let delay = options.initialDelayMs ?? 500;
  const maxDelay = options.maxDelayMs ?? 30_000;
  const token = job.completion.token ?? (await options.token?.());
  if (!token) throw new Error(`job ${job.job_id} carries no job token and no token option was given`);
  for (let attempt = 1; ; attempt++) {
    let wait: number;
    let why: string;
    try {
      const response = await send(job.completion.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...(job.traceparent ? { traceparent: job.traceparent } : {}),
        },
        body: JSON.stringify(report),
        signal: AbortSignal.timeout(60_000),
      });
      const body = await readBody(response);
      if (response.ok) return { kind: 'recorded', status: response.status, body };
      const message = (body as { message?: string } | undefined)?.message ?? `status ${response.status}`;
      if (response.status === 409) return { kind: 'conflict', message };
      if (!RETRYABLE.has(response.status))
        throw new CompletionRefused(`the completion of job ${job.job_id} was refused (${response.status}): ${message}`);
      why = `${response.status} ${message}`;
      wait = retryAfterMs(response.headers.get('retry-after')) ?? delay * (0.5 + Math.random());
    } catch (err) {
      if (err instanceof CompletionRefused) throw err;
      why = err instanceof Error ? err.message : String(err);
      wait = delay * (0.5 + Math.random());
    }
    delay = Math.min(delay * 2, maxDelay);
    if (Date.now() - started + wait > maxElapsed) {
      throw new Error(`the completion of job ${job.job_id} was not taken within ${maxElapsed} ms (last: ${why})`);
    }
    options.log?.('completion not taken yet; retrying', { job_id: job.job_id, attempt, why, wait_ms: Math.round(wait) });
    await sleep(wait);
  }
}
