import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptedAnswer = { status: number; headers?: Record<string, string>; body?: unknown };

/**
 * A completion route stand-in on loopback: answers each report with the next scripted answer (the last one repeats);
 * status 0 drops the connection without an answer.
 */
export async function completionRoute(script: ScriptedAnswer[]) {
  const received: { headers: http.IncomingHttpHeaders; body: any }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(body) });
      const next = script.length > 1 ? script.shift()! : script[0];
      if (next.status === 0) return req.socket.destroy();
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers }).end(JSON.stringify(next.body ?? { ok: true }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/complete`;
  return { url, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}
