import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { cors } from '../../../src/http/cors';
import { errorMiddleware } from '../../../src/http/error-middleware';
import { UnauthenticatedError } from '../../../src/errors';

const APP_ORIGIN = 'https://app.example.test';

/** CORS alone, in front of a stand-in for the routes: `/v2/models` has POST and GET, `/v2/secret` answers 401. */
describe('CORS for the allowed origins', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    const app = new Koa();
    app.use(errorMiddleware());
    app.use(cors([APP_ORIGIN, 'http://localhost:3000'], (path) => (path === '/v2/models' ? ['POST', 'GET'] : [])));
    app.use((ctx) => {
      if (ctx.path === '/v2/secret') throw new UnauthenticatedError('missing bearer token');
      ctx.status = ctx.method === 'OPTIONS' ? 405 : 200;
      ctx.body = { ok: true };
    });
    server = http.createServer(app.callback());
    server.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const preflight = (path: string, origin: string) =>
    fetch(`${base}${path}`, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' } });

  it('answers a preflight from an allowed origin with 204, the methods of that path and the headers it takes', async () => {
    const res = await preflight('/v2/models', APP_ORIGIN);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(res.headers.get('access-control-allow-methods')).toBe('POST, GET');
    expect(res.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, Idempotency-Key, X-Request-Id');
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(res.headers.get('vary')).toContain('Origin');
  });

  it('answers no preflight for a path that has no route', async () => {
    const res = await preflight('/v2/nothing', APP_ORIGIN);
    expect(res.status).toBe(405);
    expect(res.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('lets an allowed origin read answers, errors included, and the headers it exposes', async () => {
    const ok = await fetch(`${base}/v2/models`, { headers: { Origin: 'http://localhost:3000' } });
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(ok.headers.get('access-control-expose-headers')).toBe('X-Request-Id, WWW-Authenticate, Allow');
    const refused = await fetch(`${base}/v2/secret`, { headers: { Origin: APP_ORIGIN } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
  });

  it('gives other origins no CORS headers, so browsers keep refusing them', async () => {
    const answered = await preflight('/v2/models', 'https://evil.example.test');
    expect(answered.status).toBe(405);
    expect(answered.headers.get('access-control-allow-origin')).toBeNull();
    const read = await fetch(`${base}/v2/models`, { headers: { Origin: 'https://evil.example.test' } });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS with `*`', () => {
  it("echoes any caller's origin", async () => {
    const app = new Koa();
    app.use(cors(['*'], () => ['GET']));
    app.use((ctx) => {
      ctx.body = 'ok';
    });
    const server = http.createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
        headers: { Origin: 'https://any.example.test' },
      });
      expect(res.headers.get('access-control-allow-origin')).toBe('https://any.example.test');
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
