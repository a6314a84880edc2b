import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: { type: string; timestamp: string; data: Record<string, any> };
  status: number;
}

/**
 * A webhook receiver on 127.0.0.1: keeps every request, answers with what `respond` says (200 by default) for
 * the n-th request (1-based) of a path.
 */
export async function startReceiver() {
  const received = new Map<string, Received[]>();
  let respond: (path: string, n: number) => number = () => 200;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const list = received.get(req.url!) ?? [];
      received.set(req.url!, list);
      const status = respond(req.url!, list.length + 1);
      list.push({ headers: req.headers, body, json: JSON.parse(body), status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    /** A URL of its own for each test. */
    url: (path: string) => `${base}/${path}`,
    requests: (path: string) => received.get(`/${path}`) ?? [],
    answer(fn: (path: string, n: number) => number) {
      respond = fn;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
