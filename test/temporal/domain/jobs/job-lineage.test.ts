import { Harness, PLATFORM_CLIENT, uid } from '../../../helpers/harness';
import { activeModel, tenantWithDomain, initService, eventually, ECHO_HANDLERS } from '../../../helpers/fixtures';

const FEATURES = [{ name: 'seats', json_schema: { type: 'integer', minimum: 1 }, mandatory: true }];

describe('job lineage', () => {
  let h: Harness;
  const stranger = uid('lineage-b');
  beforeAll(async () => {
    h = await Harness.start({
      worker: true,
      env: {
        MACHINE_CLIENTS: JSON.stringify({
          [PLATFORM_CLIENT]: { access: 'platform' },
          [stranger]: { access: 'tenant', tenants: [stranger] },
        }),
      },
    });
  });
  afterAll(() => h.stop());

  const subscribe = (source: string, target: string) =>
    h.api('POST', `/v2/models/${source}/event-subscriptions`, {
      body: { trigger_event: 'inference_complete', target_model_id: target, target_action: 'inference', input_source: 'trigger_output' },
    });

  it("shows a three-level cascade's tree from any of its jobs, with a failed cascade entry, and hides it from other tenants", async () => {
    const [a, b, c] = [await activeModel(h, { features: FEATURES }), await activeModel(h, { features: FEATURES }), await activeModel(h)];
    // A model with no active version: its cascade entry fails and starts no job.
    const inactive = uid('model');
    await h.api('POST', '/v2/models', { body: { id: inactive, name: inactive, description: '', metadata: {}, handlers: ECHO_HANDLERS } });
    const subAB = (await subscribe(a, b)).body.subscription_id;
    const subBC = (await subscribe(b, c)).body.subscription_id;
    const subAX = (await subscribe(a, inactive)).body.subscription_id;

    const { base, clientId } = await tenantWithDomain(h, { features: FEATURES, modelId: a });
    const init = await initService(h, base, 'svc-l', { seats: 2 });
    const root = init.body.job_id as string;
    const rows = await eventually(
      async () => {
        const found = await h.knex('model_jobs').where({ root_job_id: root }).orderBy('cascade_depth');
        return found.length === 3 && found.every((r) => r.status === 'success' && r.completion_result) && found;
      },
      30000,
      'three jobs of the cascade done',
    );
    const [jobA, jobB, jobC] = rows.map((r: { job_id: string }) => r.job_id);

    const trees = [];
    for (const jobId of [jobA, jobB, jobC]) {
      const res = await h.api('GET', `/v2/jobs/${jobId}/lineage`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ job_id: jobId, root_job_id: jobA, truncated: false, max_jobs: 500 });
      trees.push(res.body.jobs);
    }
    expect(trees[1]).toEqual(trees[0]);
    expect(trees[2]).toEqual(trees[0]);
    expect(trees[0]).toEqual([
      expect.objectContaining({
        job_id: jobA,
        parent_job_id: null,
        subscription_id: null,
        depth: 0,
        model_id: a,
        status: 'success',
        trigger: 'service_init',
        cascade_error: null,
        failed_cascades: [{ subscription_id: subAX, error: expect.stringContaining('no active version') }],
      }),
      expect.objectContaining({
        job_id: jobB,
        parent_job_id: jobA,
        subscription_id: subAB,
        depth: 1,
        model_id: b,
        status: 'success',
        failed_cascades: [],
      }),
      expect.objectContaining({ job_id: jobC, parent_job_id: jobB, subscription_id: subBC, depth: 2, model_id: c, status: 'success' }),
    ]);

    // Every job carries its lineage; the cascade's workflow names its parent in memo and summary.
    expect((await h.api('GET', `/v2/jobs/${jobC}`)).body).toMatchObject({ source_job_id: jobB, root_job_id: jobA, depth: 2 });
    const described = await h.temporal.workflow.getHandle(`job-${jobC}`).describe();
    expect(described.memo).toMatchObject({ parent_job_id: jobB, parent_workflow_id: `job-${jobB}`, root_job_id: jobA, depth: 2 });
    expect(await described.staticSummary()).toContain(`of job ${jobB}`);

    // The owner's tenant client sees it; another tenant's gets 404 from every job of the tree.
    const owner = await h.idp.human('olga', [`client:${clientId}`], ['read_models']);
    expect((await h.api('GET', `/v2/jobs/${jobC}/lineage`, { token: owner })).body.jobs).toEqual(trees[0]);
    for (const jobId of [jobA, jobB, jobC]) {
      const res = await h.api('GET', `/v2/jobs/${jobId}/lineage`, {
        token: await h.idp.human('sam', [`client:${stranger}`], ['read_models']),
      });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, message: `job ${jobId} not found` });
    }
  });

  it('answers 404 for an unknown job', async () => {
    expect((await h.api('GET', `/v2/jobs/${uid('nope')}/lineage`)).status).toBe(404);
  });
});
