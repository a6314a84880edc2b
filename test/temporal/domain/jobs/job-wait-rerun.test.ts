import { Harness, PLATFORM_CLIENT, uid } from '../../../helpers/harness';
import { activeModel, tenantWithDomain, initService, eventually, ECHO_HANDLERS } from '../../../helpers/fixtures';

const FEATURES = [{ name: 'seats', json_schema: { type: 'integer', minimum: 1 }, mandatory: true }];
const MANUAL = { training: { type: 'in_process', name: 'manual' }, inference: { type: 'in_process', name: 'manual' } };

describe('waiting for a job, and re-running one', () => {
  let h: Harness;
  const tenant = uid('rerun-a');
  beforeAll(async () => {
    h = await Harness.start({
      worker: true,
      env: {
        MACHINE_CLIENTS: JSON.stringify({ [PLATFORM_CLIENT]: { access: 'platform' }, [tenant]: { access: 'tenant', tenants: [tenant] } }),
      },
    });
  });
  afterAll(() => h.stop());

  const job = async (jobId: string) => (await h.api('GET', `/v2/jobs/${jobId}`)).body;
  const settled = (jobId: string, status = 'success') =>
    eventually(async () => (await job(jobId)).status === status, 20000, `job ${jobId} ${status}`);

  it('answers a wait within a second of the completion', async () => {
    const modelId = await activeModel(h, { features: FEATURES, handlers: MANUAL });
    const infer = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: { n: 1 } } });
    const jobId = infer.body.job_id;
    await settled(jobId, 'running');

    const waiting = h.api('GET', `/v2/jobs/${jobId}?wait=30`).then((res) => ({ res, at: Date.now() }));
    const scoped = h.api('GET', `/v2/models/${modelId}/versions/1/jobs/${jobId}?wait=30`).then((res) => ({ res, at: Date.now() }));
    // Both reads have found the job running and are held: only the completion's notification (or 30 s) answers them.
    await eventually(async () => h.finals.held(jobId) === 2, 10000, 'both reads held');
    const completing = Date.now();
    const completion = await h.api('POST', `/v2/models/${modelId}/versions/1/jobs/${jobId}/complete`, {
      body: { status: 'success', output: { ok: true } },
    });
    expect(completion.status).toBe(200);
    const completedAt = Date.now();
    for (const { res, at } of [await waiting, await scoped]) {
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ job_id: jobId, status: 'success', output: { ok: true } });
      // Answered after the completion was sent, and within a second of its answer.
      expect(at).toBeGreaterThanOrEqual(completing);
      expect(at - completedAt).toBeLessThan(1000);
    }
  });

  it('answers the current state when the wait runs out, at once for a final job, and refuses a wait above 60 s', async () => {
    const modelId = await activeModel(h, { features: FEATURES, handlers: MANUAL });
    const infer = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: {} } });
    await settled(infer.body.job_id, 'running');
    const started = Date.now();
    const res = await h.api('GET', `/v2/jobs/${infer.body.job_id}?wait=1`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('running');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);

    const echo = await activeModel(h, { features: FEATURES });
    const done = await h.api('POST', `/v2/models/${echo}/versions/1/infer`, { body: { input: {} } });
    await settled(done.body.job_id);
    const quick = Date.now();
    expect((await h.api('GET', `/v2/jobs/${done.body.job_id}?wait=60`)).body.status).toBe('success');
    expect(Date.now() - quick).toBeLessThan(1000);

    for (const bad of ['61', '-1', '1.5', 'soon']) {
      const refused = await h.api('GET', `/v2/jobs/${infer.body.job_id}?wait=${bad}`);
      expect([bad, refused.status]).toEqual([bad, 400]);
    }
  });

  it('re-runs a job with the same version, input and context, linked to the original', async () => {
    const modelId = await activeModel(h, { features: FEATURES, handlers: ECHO_HANDLERS });
    await h.api('PUT', `/v2/clients/${tenant}`, { body: {} });
    const { base, clientId, domainId } = await tenantWithDomain(h, { features: FEATURES, modelId });
    const init = await initService(h, base, 'svc-r', { seats: 5 });
    const original = await settled(init.body.job_id).then(() => job(init.body.job_id));

    const rerun = await h.api('POST', `/v2/jobs/${original.job_id}/rerun`, { headers: { 'Idempotency-Key': 'rerun-1' } });
    expect(rerun.status).toBe(202);
    expect(rerun.body.job_id).not.toBe(original.job_id);
    const repeat = await h.api('POST', `/v2/jobs/${original.job_id}/rerun`, { headers: { 'Idempotency-Key': 'rerun-1' } });
    expect(repeat.body.job_id).toBe(rerun.body.job_id);

    await settled(rerun.body.job_id);
    const again = await job(rerun.body.job_id);
    expect(again).toMatchObject({
      rerun_of: original.job_id,
      trigger: 'rerun',
      model_id: modelId,
      model_version: '1',
      client_id: clientId,
      domain_id: domainId,
      service_id: 'svc-r',
      input: original.input,
      root_job_id: rerun.body.job_id,
      depth: 0,
    });
    const linked = await h.api('GET', `/v2/jobs?rerun_of=${original.job_id}`);
    expect(linked.body.items.map((j: any) => j.job_id)).toEqual([rerun.body.job_id]);
    expect((await h.api('GET', `${base}/service/svc-r`)).body.status).toBe('available');
  });

  it('re-runs under the rules of a fresh start: 409 while running, 422 for a suspended tenant or an inactive version', async () => {
    const manual = await activeModel(h, { features: FEATURES, handlers: MANUAL });
    const running = await h.api('POST', `/v2/models/${manual}/versions/1/infer`, { body: { input: {} } });
    await settled(running.body.job_id, 'running');
    expect((await h.api('POST', `/v2/jobs/${running.body.job_id}/rerun`)).status).toBe(409);

    const modelId = await activeModel(h, { features: FEATURES, handlers: ECHO_HANDLERS });
    const { base, clientId } = await tenantWithDomain(h, { features: FEATURES, modelId });
    const init = await initService(h, base, 'svc-s', { seats: 1 });
    await settled(init.body.job_id);
    expect((await h.api('PUT', `/v2/clients/${clientId}/new_status`, { body: { status: 'suspended' } })).status).toBe(200);
    const suspended = await h.api('POST', `/v2/jobs/${init.body.job_id}/rerun`);
    expect(suspended.status).toBe(422);
    expect(suspended.body.message).toContain('suspended');

    const direct = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: {} } });
    await settled(direct.body.job_id);
    expect((await h.api('PUT', `/v2/models/${modelId}/versions/1/new_status`, { body: { status: 'failed' } })).status).toBe(200);
    const inactive = await h.api('POST', `/v2/jobs/${direct.body.job_id}/rerun`);
    expect(inactive.status).toBe(422);
    expect(inactive.body.message).toContain('inference needs an active version');
    expect(await h.knex('model_jobs').whereIn('rerun_of', [init.body.job_id, direct.body.job_id])).toEqual([]);
  });

  it('hides jobs of other tenants from a re-run (404)', async () => {
    const modelId = await activeModel(h, { features: FEATURES, handlers: ECHO_HANDLERS });
    const direct = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: {} } });
    const res = await h.api('POST', `/v2/jobs/${direct.body.job_id}/rerun`, { token: await h.idp.machine(tenant, ['run_inference']) });
    expect(res.status).toBe(404);
  });
});
