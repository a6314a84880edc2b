import type { ChildProcess } from 'node:child_process';
import { Harness, PLATFORM_CLIENT, uid } from '../../helpers/harness';
import { activeModel, tenantWithDomain, initService } from '../../helpers/fixtures';
import { serveJwks } from '../../../src/dev/dev-auth';
import { freePort } from '../../../src/dev/temporal/dev-server';
import { spawnApiProcess, killHard } from '../../helpers/worker-process';
import { testEnv } from '../../helpers/test-env';
import { ISSUER, AUDIENCE } from '../../helpers/tokens';
import { parseSamples, valueOf } from '../../helpers/prometheus';

/** A rate so slow that no token comes back while a test runs: each bucket holds exactly its burst. */
const NO_REFILL = 0.01;

/** Per-tenant token buckets on job starts and per-caller buckets on requests (docs/fairness.md, "Admission limits"). */
describe('admission limits', () => {
  let h: Harness;
  let modelId: string;
  const tenantCaller = uid('caller');
  beforeAll(async () => {
    h = await Harness.start({
      env: {
        MACHINE_CLIENTS: JSON.stringify({
          [PLATFORM_CLIENT]: { access: 'platform' },
          [tenantCaller]: { access: 'tenant', tenants: [tenantCaller] },
        }),
        CALLER_REQUESTS_PER_SECOND: String(NO_REFILL),
        CALLER_REQUESTS_BURST: '3',
      },
    });
    modelId = await activeModel(h);
  });
  afterAll(() => h.stop());

  const setLimits = (clientId: string, limits: unknown) => h.api('PUT', `/v2/clients/${clientId}`, { body: { limits } });
  const jobCount = async (clientId: string) => Number((await h.knex('model_jobs').where({ client_id: clientId }).count({ n: '*' }))[0].n);

  it("answers a tenant's job start past its bucket with 429, Retry-After and both RateLimit headers, writing nothing", async () => {
    const t = await tenantWithDomain(h, { modelId });
    expect((await setLimits(t.clientId, { jobs_per_second: NO_REFILL, burst: 2 })).status).toBe(200);
    for (const id of ['s1', 's2']) {
      const ok = await initService(h, t.base, id, { seats: 10 });
      expect(ok.status).toBe(202);
      expect(ok.headers.get('ratelimit-policy')).toBe('"jobs";q=2;w=200');
    }
    const refused = await initService(h, t.base, 's3', { seats: 10 });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ success: false, message: expect.stringMatching(/^jobs_per_second exceeded for tenant /) });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-policy')).toBe('"jobs";q=2;w=200');
    expect(refused.headers.get('ratelimit')).toMatch(/^"jobs";r=0;t=\d+$/);
    // The service the refused init would have written does not exist, and only the two accepted jobs do.
    expect((await h.api('GET', `${t.base}/service/s3`)).status).toBe(404);
    expect(await jobCount(t.clientId)).toBe(2);
    // Counted by tenant class, not by tenant id.
    const samples = parseSamples((await h.api('GET', '/metrics', { token: null })).body);
    expect(valueOf(samples, 'mos_requests_throttled_total', { limit: 'jobs', tenant: 'custom' })).toBeGreaterThanOrEqual(1);
  });

  it("refuses a tenant's next jobs while its bucket is empty without the job's transaction, with the same answer", async () => {
    const t = await tenantWithDomain(h, { modelId });
    expect((await setLimits(t.clientId, { jobs_per_second: NO_REFILL, burst: 1 })).status).toBe(200);
    expect((await initService(h, t.base, 'a', { seats: 1 })).status).toBe(202);
    const first = await initService(h, t.base, 'b', { seats: 1 }); // the bucket's statement finds it empty
    const statements: string[] = [];
    const note = (q: { sql: string }) => statements.push(q.sql.toLowerCase());
    h.knex.on('query', note);
    const again = await initService(h, t.base, 'c', { seats: 1 }).finally(() => h.knex.off('query', note));
    for (const refused of [first, again]) {
      expect(refused.status).toBe(429);
      expect(refused.body.message).toMatch(/^jobs_per_second exceeded for tenant /);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('ratelimit')).toMatch(/^"jobs";r=0;t=\d+$/);
    }
    // The domain's and the tenant's reads, no transaction, no bucket statement.
    expect(statements.filter((sql) => /^(begin|insert)|rate_limit_buckets/.test(sql))).toEqual([]);
    expect(statements.length).toBeLessThanOrEqual(2);
    expect(await jobCount(t.clientId)).toBe(1);
  });

  it("applies a tenant's override at once and falls back to the defaults when it is removed", async () => {
    const t = await tenantWithDomain(h, { modelId });
    const set = await setLimits(t.clientId, { jobs_per_second: NO_REFILL, burst: 1, fairness_weight: 3 });
    expect(set.body.limits_override).toEqual({ jobs_per_second: NO_REFILL, burst: 1, fairness_weight: 3 });
    expect(set.body.limits).toEqual({ jobs_per_second: NO_REFILL, burst: 1, max_running_jobs: null, fairness_weight: 3 });
    expect((await initService(h, t.base, 'a', { seats: 1 })).status).toBe(202);
    expect((await initService(h, t.base, 'b', { seats: 1 })).status).toBe(429);

    const removed = await setLimits(t.clientId, null);
    expect(removed.body.limits_override).toBeNull();
    expect(removed.body.limits).toEqual({ jobs_per_second: 50, burst: 200, max_running_jobs: null, fairness_weight: 1 });
    const after = await initService(h, t.base, 'b', { seats: 1 });
    expect(after.status).toBe(202);
    expect(after.headers.get('ratelimit-policy')).toBe('"jobs";q=200;w=4');
  });

  it('keeps the override when an update leaves limits out, and removes it with an empty one', async () => {
    const clientId = uid('client');
    await setLimits(clientId, { max_running_jobs: 5 });
    const renamed = await h.api('PUT', `/v2/clients/${clientId}`, { body: { name: 'renamed' } });
    expect(renamed.body.limits_override).toEqual({ max_running_jobs: 5 });
    expect((await setLimits(clientId, {})).body.limits_override).toBeNull();
  });

  it.each([
    [{ jobs_per_second: 0 }, 'jobs_per_second'],
    [{ burst: 1.5 }, 'burst'],
    [{ burst: 0 }, 'burst'],
    [{ max_running_jobs: -1 }, 'max_running_jobs'],
    [{ fairness_weight: 1000 }, 'fairness_weight'],
    [{ jobs_per_second: '5' }, 'jobs_per_second'],
    [{ rate: 5 }, 'rate'],
  ])('refuses limits %j with a 400 naming %s, changing nothing', async (limits, field) => {
    const clientId = uid('client');
    await setLimits(clientId, { burst: 7 });
    const res = await setLimits(clientId, limits);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(field);
    expect((await h.api('GET', `/v2/clients/${clientId}`)).body.limits_override).toEqual({ burst: 7 });
  });

  it("limits a tenant caller's requests on every route, and not a platform caller's", async () => {
    await h.api('PUT', `/v2/clients/${tenantCaller}`, { body: {} });
    const token = await h.idp.machine(tenantCaller, ['client_read']);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await h.api('GET', `/v2/clients/${tenantCaller}`, { token })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await h.api('GET', `/v2/clients/${tenantCaller}/jobs`, { token });
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/^requests_per_second exceeded for caller client:/);
    expect(refused.headers.get('ratelimit-policy')).toBe('"requests";q=3;w=300');
    for (let i = 0; i < 5; i++) expect((await h.api('GET', `/v2/clients/${tenantCaller}`)).status).toBe(200);
  });

  describe('across API replicas', () => {
    let jwks: Awaited<ReturnType<typeof serveJwks>>;
    let second: ChildProcess | undefined;
    let secondUrl: string;
    beforeAll(async () => {
      jwks = await serveJwks(h.idp.publicJwk);
      const port = await freePort();
      secondUrl = `http://127.0.0.1:${port}`;
      second = await spawnApiProcess({
        PORT: String(port),
        DATABASE_URL: testEnv.databaseUrl,
        TEMPORAL_ADDRESS: testEnv.temporalAddress,
        TEMPORAL_TASK_QUEUE: h.config.temporal.taskQueue,
        AUTH_JWKS_URL: jwks.url,
        AUTH_ISSUER: ISSUER,
        AUTH_AUDIENCE: AUDIENCE,
        MACHINE_CLIENTS: JSON.stringify({ [PLATFORM_CLIENT]: { access: 'platform' } }),
      });
    });
    afterAll(async () => {
      if (second) await killHard(second);
      await new Promise((r) => jwks.server.close(r));
    });

    it("draws one tenant's job starts from one bucket, whichever API process takes them", async () => {
      const t = await tenantWithDomain(h, { modelId });
      await setLimits(t.clientId, { jobs_per_second: NO_REFILL, burst: 4 });
      const token = await h.adminToken();
      const initOn = async (base: string, serviceId: string) => {
        const res = await fetch(`${base}${t.base}/service/init`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ service_id: serviceId, departure_datetime: '2031-01-01T00:00:00Z', static_features: { seats: 3 } }),
        });
        await res.arrayBuffer();
        return res.status;
      };
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push(await initOn(i % 2 === 0 ? h.baseUrl : secondUrl, `r${i}`));
      expect(statuses).toEqual([202, 202, 202, 202, 429, 429]);
      expect(await jobCount(t.clientId)).toBe(4);
    });
  });
});
