import { Harness, PLATFORM_CLIENT } from '../../helpers/harness';
import { TestIdp, ISSUER, AUDIENCE } from '../../helpers/tokens';
import { JwksServer } from '../../helpers/jwks-server';
import { FaultProxy, FaultyLink, hostPort } from '../../helpers/toxiproxy';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The API verifies tokens against a JWKS endpoint behind Toxiproxy, with short windows so outages fit a test. */
describe('identity provider outages', () => {
  let faults: FaultProxy;
  let idp: TestIdp;
  let jwks: JwksServer;
  let link: FaultyLink;
  let h: Harness | undefined;
  beforeAll(async () => {
    faults = await FaultProxy.start();
    idp = await TestIdp.create('idp-key-1');
    // 64 KB of padding: through a 1 KB/s link the body takes a minute after the headers arrive.
    jwks = await JwksServer.start([idp.publicJwk], 64 * 1024);
  });
  beforeEach(async () => {
    link = await faults.link(`jwks-${Date.now()}`, hostPort(jwks.url));
    jwks.publish([idp.publicJwk]);
    jwks.fetches = 0;
  });
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });
  afterAll(async () => {
    await jwks.stop();
    await faults.stop();
  });

  const start = (env: Record<string, string>) =>
    Harness.start({ remoteIdp: { jwksUrl: link.url(jwks.url), issuer: ISSUER, audience: AUDIENCE }, env });
  const call = async (token: string) => {
    const started = Date.now();
    const res = await h!.api('GET', '/v2/models?limit=1', { token, timeoutMs: 20000 });
    return { ...res, ms: Date.now() - started };
  };

  it('accepts valid tokens through an outage longer than the refresh window, up to the maximum staleness, then answers 503', async () => {
    h = await start({
      AUTH_JWKS_REFRESH_SECONDS: '1',
      AUTH_JWKS_MAX_STALENESS_SECONDS: '4',
      AUTH_JWKS_TIMEOUT_SECONDS: '1',
      AUTH_JWKS_MIN_REFETCH_SECONDS: '1',
    });
    const token = await idp.machine(PLATFORM_CLIENT, ['admin']);
    expect((await call(token)).status).toBe(200);
    const fetchedAt = Date.now();
    await link.cut();
    await sleep(2000); // clock: past the refresh window
    // Past the refresh window (the old cache window): the background refresh fails, the last keys still serve.
    for (let i = 0; i < 3; i++) expect((await call(token)).status).toBe(200);
    await sleep(Math.max(0, fetchedAt + 4500 - Date.now())); // clock: past the maximum staleness
    const stale = await call(token);
    expect(stale.status).toBe(503);
    expect(stale.body.message).toContain('identity provider');
    expect(stale.headers.get('retry-after')).toMatch(/^\d+$/);
    await link.restore();
    await sleep(1100); // clock: the failed fetch above is not repeated within the refetch interval
    expect((await call(token)).status).toBe(200);
  });

  it('accepts a newly published key id at once, and refetches for unknown key ids at most once per interval', async () => {
    h = await start({ AUTH_JWKS_MIN_REFETCH_SECONDS: '1' });
    expect((await call(await idp.machine(PLATFORM_CLIENT, ['admin']))).status).toBe(200);
    const rotated = await TestIdp.create('idp-key-2');
    jwks.publish([idp.publicJwk, rotated.publicJwk]);
    expect((await call(await rotated.machine(PLATFORM_CLIENT, ['admin']))).status).toBe(200);
    expect(jwks.fetches).toBe(2);
    await sleep(1100); // clock: a refetch interval after the rotation's fetch
    const stranger = await TestIdp.create('never-published');
    const token = await stranger.machine(PLATFORM_CLIENT, ['admin']);
    for (let i = 0; i < 5; i++) {
      const res = await call(token);
      expect(res.status).toBe(401);
      expect(res.body.message).toContain('unknown key');
    }
    expect(jwks.fetches).toBe(3);
  });

  it('accepts a key published right after made-up key ids spent the refetch, and a flood of them cannot push it back', async () => {
    h = await start({ AUTH_JWKS_MIN_REFETCH_SECONDS: '2' });
    expect((await call(await idp.machine(PLATFORM_CLIENT, ['admin']))).status).toBe(200);
    const stranger = await TestIdp.create('made-up');
    const madeUp = (i: number) => stranger.sign({ client_id: PLATFORM_CLIENT, scope: 'platform/admin' }, { kid: `made-up-${i}` });
    // Anyone can send a token naming a key id: this one spends the refetch, as the attack run did.
    expect((await call(await madeUp(0))).status).toBe(401);
    const fetchesBefore = jwks.fetches;
    const floodStarted = Date.now();
    const flood: Promise<number>[] = [];
    const timer = setInterval(() => flood.push(madeUp(flood.length + 1).then(async (t) => (await call(t)).status)), 50);
    try {
      const rotated = await TestIdp.create('idp-key-3');
      jwks.publish([idp.publicJwk, rotated.publicJwk]);
      const res = await call(await rotated.machine(PLATFORM_CLIENT, ['admin']));
      expect(res.status).toBe(200);
      // It waits for the next refetch (at most one interval), never for the flood.
      expect(res.ms).toBeLessThan(3000);
    } finally {
      clearInterval(timer);
    }
    expect(new Set(await Promise.all(flood))).toEqual(new Set([401]));
    // The flood's made-up ids share the refetches: at most one per interval.
    expect(jwks.fetches - fetchesBefore).toBeLessThanOrEqual(Math.ceil((Date.now() - floodStarted) / 2000) + 1);
  });

  it('answers within the fetch timeout when the key set stalls after its headers', async () => {
    h = await start({ AUTH_JWKS_TIMEOUT_SECONDS: '1', AUTH_JWKS_MIN_REFETCH_SECONDS: '0' });
    await link.throttle(1);
    const token = await idp.machine(PLATFORM_CLIENT, ['admin']);
    const res = await call(token);
    expect(res.ms).toBeLessThan(1000 + 3000); // the 1 s fetch timeout, with room for a loaded CI machine
    expect(res.status).toBe(503);
    expect(res.body.message).toContain('identity provider');
    // Not restored: Toxiproxy takes 10 s to drop a throttled connection; the next test gets a link of its own.
  });

  it('answers within the fetch timeout when the key set does not answer at all', async () => {
    h = await start({ AUTH_JWKS_TIMEOUT_SECONDS: '1', AUTH_JWKS_MIN_REFETCH_SECONDS: '0' });
    await link.stall();
    const res = await call(await idp.machine(PLATFORM_CLIENT, ['admin']));
    expect(res.ms).toBeLessThan(1000 + 3000); // the 1 s fetch timeout, with room for a loaded CI machine
    expect(res.status).toBe(503);
    await link.restore();
    expect((await call(await idp.machine(PLATFORM_CLIENT, ['admin']))).status).toBe(200);
  });
});
