import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postWebhook } from '../../../src/webhooks/sender';
import { targetPolicy } from '../../../src/webhooks/target-policy';

const policy = targetPolicy({ allowHttp: true, allowedPrivateRanges: ['127.0.0.1/32'] });

/** What an `http` handler's call needs of the sender: the answer's body, whole, and nothing past the limit. */
describe('postWebhook keeping the answer (http handlers)', () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      if (req.url === '/small') return res.writeHead(200).end('{"score":1}');
      if (req.url === '/large') return res.writeHead(200).end('x'.repeat(5000));
      // Promises 100 bytes, sends 10 and hangs up: a connection lost mid-answer.
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"partial"');
      setTimeout(() => res.destroy(), 20);
    });
    server.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const post = (path: string) =>
    postWebhook({ url: `${url}${path}`, headers: {}, body: '{}' }, { policy, timeoutMs: 5000, connectTimeoutMs: 1000, maxBodyBytes: 1000 });

  it('returns the body of a 2xx', async () => {
    expect(await post('/small')).toMatchObject({ statusCode: 200, body: '{"score":1}' });
  });

  it('fails an answer longer than the limit', async () => {
    const result = await post('/large');
    expect(result.error).toBe('answered more than 1000 bytes');
    expect(result.body).toBeUndefined();
  });

  it('fails an answer cut off mid-way as no answer (so it is retried)', async () => {
    const result = await post('/cut');
    expect(result.error).toMatch(/cut off|aborted|socket hang up/);
    expect(result.statusCode).toBeUndefined();
  });
});
