import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '../webhooks/signature';

/** One call the stand-in received, as it arrived. */
export interface ModelServerCall {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Whether the signature verified with the secret; undefined when the stand-in was given none. */
  verified?: boolean;
}

export interface ModelServer {
  url: string;
  calls: ModelServerCall[];
  /** The secret calls must be signed with (the model's http_handler_secret); until set, signatures are not checked. */
  setSecret(secret: string): void;
  close(): Promise<void>;
}

interface Job {
  job_id: string;
  input?: Record<string, unknown>;
  completion?: { url: string; token?: string };
  traceparent?: string;
}

/** The "model": a score from the input's numbers, so a reader can see the answer came from the input. */
export function predict(input: Record<string, unknown> = {}): Record<string, unknown> {
  const numbers = Object.values(input).filter((v): v is number => typeof v === 'number');
  const sum = numbers.reduce((a, b) => a + b, 0);
  return { score: Math.round((sum / (sum + 100)) * 100) / 100, model: 'stand-in' };
}

async function complete(job: Job): Promise<void> {
  if (!job.completion?.url || !job.completion.token) return;
  const response = await fetch(job.completion.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${job.completion.token}`,
      'content-type': 'application/json',
      ...(job.traceparent ? { traceparent: job.traceparent } : {}),
    },
    body: JSON.stringify({ status: 'success', output: predict(job.input) }),
  });
  await response.body?.cancel();
}

/**
 * A tiny model server for `http` handlers (tests, and the quick start's `npm start`): `POST /sync` answers the output
 * at once; `POST /async` answers 202 and completes the job through the completion route with the job token. A call
 * whose signature does not verify is answered 401, as a real server would.
 */
export async function startModelServer(options: { port?: number; host?: string; secret?: string } = {}): Promise<ModelServer> {
  let secret = options.secret;
  const calls: ModelServerCall[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const header = (name: string) => String(req.headers[name] ?? '');
      const verified = secret
        ? verify(secret, { id: header('webhook-id'), timestamp: header('webhook-timestamp'), signature: header('webhook-signature') }, body)
        : undefined;
      calls.push({ path: req.url ?? '/', headers: req.headers, body, verified });
      const send = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (req.method !== 'POST') return send(405, { message: 'POST a job' });
      if (verified === false) return send(401, { message: 'signature does not verify' });
      let job: Job;
      try {
        job = JSON.parse(body) as Job;
      } catch {
        return send(400, { message: 'the body is not JSON' });
      }
      if (req.url === '/sync') return send(200, predict(job.input));
      if (req.url === '/async') {
        send(202, { accepted: job.job_id });
        // After the answer, as a queue consumer would; a failed report is the stand-in's to lose (the job times out).
        setImmediate(() => void complete(job).catch(() => undefined));
        return;
      }
      return send(404, { message: 'POST /sync or /async' });
    });
  });
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await new Promise((resolve, reject) => server.once('listening', resolve).once('error', reject));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    setSecret: (value) => (secret = value),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
