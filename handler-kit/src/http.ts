import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createJobHandler, type JobFunction, type KitOptions } from './handler';
import { parseJob, InvalidPayload } from './job';

export interface HttpKitOptions extends KitOptions {
  /** The model's `http_handler_secret` (whsec_...): calls whose signature does not verify are answered 401. */
  secret?: string;
  /** Oldest signature timestamp accepted, in seconds either side of now (default 300). */
  toleranceSeconds?: number;
  /** Largest body read (default 1 MiB). */
  maxBodyBytes?: number;
}

/** Standard Webhooks verification: `v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the base64 part of the secret. */
export function verifySignature(secret: string, headers: IncomingMessage['headers'], body: string, toleranceSeconds = 300): boolean {
  const id = String(headers['webhook-id'] ?? '');
  const timestamp = Number(headers['webhook-timestamp']);
  if (!id || !Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > toleranceSeconds) return false;
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  const expected = Buffer.from(`v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`);
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .some((candidate) => {
      const given = Buffer.from(candidate);
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/**
 * A request listener for an `http` handler in `async` mode (`http.createServer(httpHandler(fn, { secret }))`): checks
 * the signature and the payload, answers 202 at once, then runs the job and reports it with its job token.
 */
export function httpHandler(fn: JobFunction, options: HttpKitOptions = {}) {
  const handle = createJobHandler(fn, options);
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  return (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    let size = 0;
    const answer = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => {
      if (req.method !== 'POST') return answer(405, { message: 'POST a job' });
      if (size > limit) return answer(413, { message: `the body is larger than ${limit} bytes` });
      const body = Buffer.concat(chunks).toString('utf8');
      if (options.secret && !verifySignature(options.secret, req.headers, body, options.toleranceSeconds)) {
        return answer(401, { message: 'the signature does not verify with the handler secret' });
      }
      try {
        parseJob(body);
      } catch (err) {
        if (err instanceof InvalidPayload) return answer(400, { message: err.message });
        throw err;
      }
      answer(202, { accepted: true });
      handle(body).catch((err: unknown) => options.log?.('the job could not be reported', { error: String(err) }));
    });
  };
}
