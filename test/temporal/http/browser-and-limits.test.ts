import { Harness } from '../../helpers/harness';

const APP_ORIGIN = 'https://app.example.test';

describe('what browsers and large bodies meet', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start({ env: { CORS_ALLOWED_ORIGINS: `${APP_ORIGIN}, http://localhost:3000` } });
  });
  afterAll(() => h.stop());

  it('answers a body over 1 MB with 413', async () => {
    const res = await h.api('PUT', '/v2/clients/too-big', { body: { name: 'x'.repeat(2 * 1024 * 1024) } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ success: false, message: 'request body exceeds 1 MB' });
  });

  it('answers a preflight from an allowed origin with 204 and the methods of that path', async () => {
    const res = await fetch(`${h.baseUrl}/v2/models`, {
      method: 'OPTIONS',
      headers: {
        Origin: APP_ORIGIN,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(res.headers.get('access-control-allow-methods')).toBe('POST, GET');
    expect(res.headers.get('access-control-allow-headers')).toContain('Authorization');
    expect(res.headers.get('vary')).toContain('Origin');
  });

  it('lets an allowed origin read answers, errors included, and the request id', async () => {
    const res = await h.api('GET', '/v2/models', { token: null, headers: { Origin: APP_ORIGIN } });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
  });

  it('gives other origins no CORS headers, so browsers keep refusing them', async () => {
    const preflight = await fetch(`${h.baseUrl}/v2/models`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example.test', 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.status).toBe(405);
    const res = await h.api('GET', '/v2/health', { token: null, headers: { Origin: 'https://evil.example.test' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS by default', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(() => h.stop());

  it('is off: no origin gets CORS headers', async () => {
    const res = await h.api('GET', '/v2/health', { token: null, headers: { Origin: APP_ORIGIN } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
