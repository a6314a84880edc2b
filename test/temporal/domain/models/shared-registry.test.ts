import { Harness, PLATFORM_CLIENT, uid } from '../../../helpers/harness';
import { activeModel, tenantWithDomain, initService } from '../../../helpers/fixtures';

/**
 * What tenants share (docs/authorization.md, "Platform-only"): the model registry is platform-owned, so a caller
 * bound to a tenant reads it but changes nothing in it, whatever its scopes; and one rule decides which tenants a
 * tenant machine client acts for, on every route that shows jobs.
 */
describe('the shared registry and tenant reach', () => {
  let h: Harness;
  let modelId: string;
  const acme = uid('acme');
  const beta = uid('beta');
  /** A tenant machine client of acme whose client_id names no tenant (a batch job of acme's, say). */
  const acmeBatch = `${acme}-batch`;
  beforeAll(async () => {
    h = await Harness.start({
      worker: true,
      env: {
        MACHINE_CLIENTS: JSON.stringify({
          [PLATFORM_CLIENT]: { access: 'platform' },
          [acme]: { access: 'tenant', tenants: [acme] },
          [beta]: { access: 'tenant', tenants: [beta] },
          [acmeBatch]: { access: 'tenant', tenants: [acme] },
        }),
        // One schedule per tenant (and one for the registry's), so a quota shared with another tenant shows at once.
        SCHEDULES_MAX_PER_TENANT: '1',
      },
    });
    modelId = await activeModel(h);
  });
  afterAll(() => h.stop());

  /** Every registry write a tenant-bound caller might try, aimed at a model every tenant runs. */
  const registryWrites = () => [
    {
      what: "a model's inference handler",
      method: 'PUT',
      path: `/v2/models/${modelId}`,
      body: { handlers: { inference: { type: 'http', url: 'http://127.0.0.1:32010/async', mode: 'async' } } },
    },
    { what: 'a new version', method: 'POST', path: `/v2/models/${modelId}/versions`, body: { version: '9', features: {} } },
    { what: "a version's status", method: 'PUT', path: `/v2/models/${modelId}/versions/1/new_status`, body: { status: 'failed' } },
    { what: 'a training job', method: 'POST', path: `/v2/models/${modelId}/versions/1/train`, body: { input: {} } },
    { what: 'a job of no tenant', method: 'POST', path: `/v2/models/${modelId}/versions/1/infer`, body: { input: {} } },
    {
      what: 'a subscription',
      method: 'POST',
      path: `/v2/models/${modelId}/event-subscriptions`,
      body: { trigger_event: 'inference_complete', target_model_id: modelId, target_action: 'inference', input_source: 'trigger_output' },
    },
    {
      what: 'an inference schedule of the registry',
      method: 'POST',
      path: '/v2/inference-schedules',
      body: { model_id: modelId, model_version: '1', input: {}, spec: { intervals: [{ every_seconds: 3600 }] } },
    },
  ];

  const tenantBound = async () => [
    {
      who: 'a user of beta with the registry scopes',
      token: await h.idp.human('mallory', [`client:${beta}`], ['write_models', 'read_models', 'train_model', 'run_inference']),
    },
    { who: 'a user of beta with scope admin', token: await h.idp.human('mallory', [`client:${beta}`], ['admin']) },
    {
      who: "beta's machine client with the registry scopes",
      token: await h.idp.machine(beta, ['write_models', 'train_model', 'run_inference']),
    },
    { who: "beta's machine client with scope admin", token: await h.idp.machine(beta, ['admin']) },
  ];

  it("refuses every registry write of a tenant-bound caller, so no tenant changes what another tenant's jobs run", async () => {
    const before = (await h.api('GET', `/v2/models/${modelId}`)).body;
    const failures: string[] = [];
    for (const { who, token } of await tenantBound()) {
      for (const w of registryWrites()) {
        const res = await h.api(w.method, w.path, { token, body: w.body });
        if (res.status !== 403) failures.push(`${who}, ${w.what}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    expect(failures).toEqual([]);
    // Nothing changed: acme's next job still runs the registry's own handler, not beta's server.
    expect((await h.api('GET', `/v2/models/${modelId}`)).body).toEqual(before);
    const t = await tenantWithDomain(h, { modelId, clientId: acme });
    const init = await initService(h, t.base, 'VICTIM-1', { seats: 10 });
    expect(init.status).toBe(202);
    const job = await h.api('GET', `/v2/jobs/${init.body.job_id}?wait=30`);
    expect(job.body).toMatchObject({ status: 'success', client_id: acme });
  });

  it("keeps schedule quotas per tenant: a tenant fills its own, never the registry's or another tenant's", async () => {
    const asBeta = await h.idp.human('mallory', [`client:${beta}`], ['run_inference']);
    const registry = { model_id: modelId, model_version: '1', input: {}, spec: { intervals: [{ every_seconds: 3600 }] }, paused: true };
    expect((await h.api('POST', '/v2/inference-schedules', { token: asBeta, body: registry })).status).toBe(403);
    const platform = await h.api('POST', '/v2/training-schedules', { body: registry });
    expect(platform.status).toBe(201);

    const b = await tenantWithDomain(h, { modelId, clientId: beta });
    const a = await tenantWithDomain(h, { modelId, clientId: acme });
    for (const t of [a, b]) expect((await initService(h, t.base, 'SCHEDULED', { seats: 2 })).status).toBe(202);
    const rescore = (t: { domainId: string }) => ({
      domain_id: t.domainId,
      service_id: 'SCHEDULED',
      spec: { cron: ['0 3 * * *'] },
      paused: true,
    });
    expect((await h.api('POST', `/v2/clients/${beta}/schedules`, { token: asBeta, body: rescore(b) })).status).toBe(201);
    const over = await h.api('POST', `/v2/clients/${beta}/schedules`, { token: asBeta, body: rescore(b) });
    expect([over.status, over.body.message]).toEqual([422, `client ${beta} has 1 schedules, the most allowed (SCHEDULES_MAX_PER_TENANT)`]);
    expect((await h.api('POST', `/v2/clients/${acme}/schedules`, { body: rescore(a) })).status).toBe(201);
  });

  it('lets a tenant-bound user read the registry', async () => {
    const token = await h.idp.human('mallory', [`client:${beta}`], ['read_models']);
    expect((await h.api('GET', `/v2/models/${modelId}`, { token })).status).toBe(200);
    expect((await h.api('GET', `/v2/models/${modelId}/versions`, { token })).status).toBe(200);
  });

  it("shows a tenant client the same jobs on every route: without admin, only its own client_id's tenant", async () => {
    const t = await tenantWithDomain(h, { modelId, clientId: acme });
    const init = await initService(h, t.base, uid('svc'), { seats: 1 });
    expect(init.status).toBe(202);
    const jobId: string = init.body.job_id;

    const batch = await h.idp.machine(acmeBatch, ['client_read', 'read_models']);
    expect((await h.api('GET', `/v2/clients/${acme}/jobs`, { token: batch })).status).toBe(403);
    const searched = await h.api('GET', `/v2/jobs?client_id=${acme}`, { token: batch });
    expect([searched.status, searched.body.items]).toEqual([200, []]);
    expect((await h.api('GET', `/v2/jobs/${jobId}`, { token: batch })).status).toBe(404);

    // Scope admin lifts the client_id rule (never the tenant list): then every route shows the job.
    const batchAdmin = await h.idp.machine(acmeBatch, ['admin']);
    expect((await h.api('GET', `/v2/clients/${acme}/jobs`, { token: batchAdmin })).body.items.map((j: any) => j.job_id)).toContain(jobId);
    expect((await h.api('GET', `/v2/jobs?client_id=${acme}`, { token: batchAdmin })).body.items.map((j: any) => j.job_id)).toContain(jobId);
    expect((await h.api('GET', `/v2/jobs/${jobId}`, { token: batchAdmin })).status).toBe(200);
  });
});
