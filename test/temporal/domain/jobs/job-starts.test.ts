import { Harness, uid } from '../../../helpers/harness';
import { activeModel, tenantWithDomain, initService, eventually, ECHO_HANDLERS } from '../../../helpers/fixtures';

const SIMPLE = [{ name: 'seats', json_schema: { type: 'integer' }, mandatory: true }];

describe('starting jobs: training, direct inference, assignments, lists', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start({ worker: true, env: { MAX_CASCADE_DEPTH: '2' } });
  });
  afterAll(() => h.stop());

  const job = async (modelId: string, version: string, jobId: string) =>
    (await h.api('GET', `/v2/models/${modelId}/versions/${version}/jobs/${jobId}`)).body;
  const finished = (modelId: string, version: string, jobId: string) =>
    eventually(
      async () => {
        const j = await job(modelId, version, jobId);
        return ['success', 'failure', 'timed_out'].includes(j.status) && j;
      },
      20000,
      `job ${jobId} to finish`,
    );

  it('trains a version: pending → training → active, and fires training_complete subscriptions', async () => {
    const modelId = uid('model');
    await h.api('POST', '/v2/models', { body: { id: modelId, name: 'm', description: '', metadata: {}, handlers: ECHO_HANDLERS } });
    const downstream = await activeModel(h);
    const sub = await h.api('POST', `/v2/models/${modelId}/event-subscriptions`, {
      body: {
        trigger_event: 'training_complete',
        target_model_id: downstream,
        target_action: 'inference',
        input_source: 'trigger_output',
        label: 'evaluate',
      },
    });
    const train = await h.api('POST', `/v2/models/${modelId}/versions/1/train`, { body: { input: { epochs: 3 } } });
    expect(train.status).toBe(202);
    const done = await finished(modelId, '1', train.body.job_id);
    expect(done).toMatchObject({ job_type: 'training', status: 'success', output: { epochs: 3 } });
    expect((await h.api('GET', `/v2/models/${modelId}/versions/1`)).body.status).toBe('active');
    const cascades = await eventually(
      async () => {
        const items = (await h.api('GET', `/v2/models/${downstream}/versions/1/jobs`)).body.items.filter(
          (j: any) => j.subscription_id === sub.body.subscription_id,
        );
        return items.length > 0 && items;
      },
      20000,
      'the cascade',
    );
    expect(cascades).toHaveLength(1);
    expect(cascades[0]).toMatchObject({ trigger: 'cascade', source_job_id: train.body.job_id, input: { epochs: 3 } });
    expect((await h.api('POST', `/v2/models/${modelId}/versions/1/train`, { body: {} })).status).toBe(409);
  });

  it('moves a version to failed when training fails', async () => {
    const modelId = uid('model');
    await h.api('POST', '/v2/models', {
      body: {
        id: modelId,
        name: 'm',
        description: '',
        metadata: {},
        handlers: { training: { type: 'in_process', name: 'fail' }, inference: ECHO_HANDLERS.inference },
      },
    });
    const train = await h.api('POST', `/v2/models/${modelId}/versions/1/train`, { body: {} });
    expect((await finished(modelId, '1', train.body.job_id)).status).toBe('failure');
    expect((await h.api('GET', `/v2/models/${modelId}/versions/1`)).body.status).toBe('failed');
  });

  it('validates direct inference input against the contract before dispatch', async () => {
    const modelId = await activeModel(h, {
      handlers: { training: ECHO_HANDLERS.training, inference: { type: 'in_process', name: 'sum' } },
      handler_contracts: {
        inference: {
          input_schema: { type: 'object', required: ['values'], properties: { values: { type: 'array', items: { type: 'number' } } } },
        },
      },
    });
    const bad = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: { values: ['a'] } } });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toContain('input_schema');
    const good = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: { values: [1, 2, 3.5] } } });
    expect(good.status).toBe(202);
    expect((await finished(modelId, '1', good.body.job_id)).output).toEqual({ sum: 6.5 });
  });

  it('refuses inference on a version that is not active', async () => {
    const modelId = uid('model');
    await h.api('POST', '/v2/models', { body: { id: modelId, name: 'm', description: '', metadata: {}, handlers: ECHO_HANDLERS } });
    expect((await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: {} })).status).toBe(422);
  });

  it('runs domain and service assignments as tenant jobs with the assignment settings', async () => {
    const modelId = await activeModel(h, { features: SIMPLE });
    const { base, clientId } = await tenantWithDomain(h, { features: SIMPLE, modelId });
    await h.api('PUT', `${base}/assignments/explain`, { body: { model_id: modelId, model_version: '1', settings: { depth: 2 } } });
    const run = await h.api('POST', `${base}/assignments/explain/run`, { body: { input: { q: 1 } } });
    expect(run.status).toBe(202);
    const ran = await finished(modelId, '1', run.body.job_id);
    expect(ran).toMatchObject({
      trigger: 'assignment',
      client_id: clientId,
      metadata: { assignment_key: 'explain', settings: { depth: 2 } },
    });

    await initService(h, base, 'svc', { seats: 1 });
    const viaService = await h.api('POST', `${base}/service/svc/assignments/explain/run`, { body: { input: {} } });
    expect(viaService.status).toBe(202);
    expect((await finished(modelId, '1', viaService.body.job_id)).service_id).toBe('svc');
    expect((await h.api('POST', `${base}/assignments/none/run`, { body: {} })).status).toBe(404);
  });

  it('lists jobs per version and per tenant with filters', async () => {
    const modelId = await activeModel(h, { features: SIMPLE });
    const { base, clientId } = await tenantWithDomain(h, { features: SIMPLE, modelId });
    const a = await initService(h, base, 'a', { seats: 1 });
    const b = await initService(h, base, 'b', { seats: 2 });
    await finished(modelId, '1', a.body.job_id);
    await finished(modelId, '1', b.body.job_id);
    const tenantJobs = await h.api('GET', `/v2/clients/${clientId}/jobs`);
    expect(tenantJobs.body.items.map((j: any) => j.job_id)).toEqual([b.body.job_id, a.body.job_id]);
    expect((await h.api('GET', `/v2/clients/${clientId}/jobs?service_id=a`)).body.items.map((j: any) => j.job_id)).toEqual([a.body.job_id]);
    expect((await h.api('GET', `/v2/models/${modelId}/versions/1/jobs?status=success&limit=1`)).body).toMatchObject({
      items: [{ job_id: b.body.job_id }],
      next_cursor: expect.any(String),
    });
    expect((await h.api('GET', `/v2/clients/${clientId}/jobs?status=done`)).status).toBe(400);
    expect((await h.api('GET', `/v2/clients/${uid('nobody')}/jobs`)).status).toBe(404);
  });

  it('returns the first job for a repeated Idempotency-Key on direct inference', async () => {
    const modelId = await activeModel(h);
    const headers = { 'Idempotency-Key': uid('key') };
    const first = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: {} }, headers });
    const again = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: {} }, headers });
    expect(again.body.job_id).toBe(first.body.job_id);
    const other = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, {
      body: { input: {} },
      headers: { 'Idempotency-Key': uid('key') },
    });
    expect(other.body.job_id).not.toBe(first.body.job_id);
  });

  it('bounds a cascade that loops back on its own model', async () => {
    const modelId = await activeModel(h);
    const loop = await h.api('POST', `/v2/models/${modelId}/event-subscriptions`, {
      body: {
        trigger_event: 'inference_complete',
        target_model_id: modelId,
        target_action: 'inference',
        input_source: 'trigger_output',
        label: 'loop',
      },
    });
    const start = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: { n: 1 } } });
    const chain = await eventually(
      async () => {
        const rows = await h.knex('model_jobs').where({ model_id: modelId }).orderBy('cascade_depth');
        const last = rows[rows.length - 1];
        return rows.length === 3 && last.completion_result && rows;
      },
      30000,
      'the cascade chain to stop',
    );
    expect(chain.map((r: any) => r.cascade_depth)).toEqual([0, 1, 2]);
    expect(chain[0].job_id).toBe(start.body.job_id);
    expect(chain[2].completion_result.triggered_events).toEqual([
      { subscription_id: loop.body.subscription_id, error: 'cascade depth limit of 2 reached' },
    ]);
  });

  it('reports a stale subscription as a failed entry instead of starting a job', async () => {
    const source = await activeModel(h);
    const target = await activeModel(h);
    const sub = await h.api('POST', `/v2/models/${source}/event-subscriptions`, {
      body: {
        trigger_event: 'inference_complete',
        target_model_id: target,
        target_action: 'inference',
        input_source: 'stored',
        input: { a: 1 },
        label: 's',
      },
    });
    await h.api('PUT', `/v2/models/${target}`, {
      body: { handlers: { ...ECHO_HANDLERS, inference: { type: 'in_process', name: 'sum' } } },
    });
    expect((await h.api('GET', `/v2/models/${source}/event-subscriptions/${sub.body.subscription_id}`)).body.status).toBe('stale');
    const start = await h.api('POST', `/v2/models/${source}/versions/1/infer`, { body: {} });
    await finished(source, '1', start.body.job_id);
    const row = await eventually(async () => {
      const r = await h.knex('model_jobs').where({ job_id: start.body.job_id }).first();
      return r.completion_result && r;
    });
    expect(row.completion_result.triggered_events).toEqual([
      { subscription_id: sub.body.subscription_id, error: expect.stringContaining('subscription is stale') },
    ]);
    expect((await h.api('GET', `/v2/models/${target}/versions/1/jobs`)).body.items).toEqual([]);
    const reactivated = await h.api('PUT', `/v2/models/${source}/event-subscriptions/${sub.body.subscription_id}/new_status`, {
      body: { status: 'active' },
    });
    expect(reactivated.body.status).toBe('active');
  });
});
