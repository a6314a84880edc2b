import { ECSClient } from '@aws-sdk/client-ecs';
import { Harness, PLATFORM_CLIENT, uid } from '../../../helpers/harness';
import { activeModel, tenantWithDomain, initService, eventually, ECHO_HANDLERS } from '../../../helpers/fixtures';
import { AwsStandIn, TEST_AWS } from '../../../helpers/aws-stand-in';

const FEATURES = [{ name: 'seats', json_schema: { type: 'integer', minimum: 1 }, mandatory: true }];
const MANUAL = { training: { type: 'in_process', name: 'manual' }, inference: { type: 'in_process', name: 'manual' } };
const TASK_ARN = 'arn:aws:ecs:eu-west-1:123456789012:task/ml-cluster/0f1e2d';

describe('cancelling a job', () => {
  let h: Harness;
  let ecs: AwsStandIn;
  const tenantA = uid('cancel-a');
  const tenantB = uid('cancel-b');
  beforeAll(async () => {
    ecs = await AwsStandIn.start((req) =>
      req.headers['x-amz-target'] === 'AmazonEC2ContainerServiceV20141113.StopTask'
        ? { status: 200, body: { task: { taskArn: TASK_ARN, desiredStatus: 'STOPPED' } } }
        : { status: 200, body: { tasks: [{ taskArn: TASK_ARN }], failures: [] } },
    );
    h = await Harness.start({
      worker: true,
      ecs: new ECSClient({ ...TEST_AWS, endpoint: ecs.url }),
      env: {
        MACHINE_CLIENTS: JSON.stringify({
          [PLATFORM_CLIENT]: { access: 'platform' },
          [tenantA]: { access: 'tenant', tenants: [tenantA] },
          [tenantB]: { access: 'tenant', tenants: [tenantB] },
        }),
      },
    });
  });
  afterAll(async () => {
    await h.stop();
    await ecs.stop();
  });

  const job = async (jobId: string) => (await h.api('GET', `/v2/jobs/${jobId}`)).body;
  const running = (jobId: string) => eventually(async () => (await job(jobId)).status === 'running', 20000, `job ${jobId} running`);

  it('cancels a running job: its late completion gets 409, nothing cascades, the workflow closes cancelled, the service fails', async () => {
    const modelId = await activeModel(h, { features: FEATURES, handlers: MANUAL });
    const target = await activeModel(h, { features: FEATURES, handlers: ECHO_HANDLERS });
    const sub = await h.api('POST', `/v2/models/${modelId}/event-subscriptions`, {
      body: { trigger_event: 'inference_complete', target_model_id: target, target_action: 'inference', input_source: 'trigger_output' },
    });
    expect(sub.status).toBe(201);
    const { base } = await tenantWithDomain(h, { features: FEATURES, modelId });
    const init = await initService(h, base, 'svc-c', { seats: 2 });
    const jobId = init.body.job_id;
    await running(jobId);

    const cancelled = await h.api('POST', `/v2/jobs/${jobId}/cancel`, { body: { reason: 'wrong input' } });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      job_id: jobId,
      status: 'cancelled',
      cancelled_by: `client:${PLATFORM_CLIENT}`,
      cancel_reason: 'wrong input',
    });
    expect(cancelled.body.completed_at).toEqual(expect.any(String));

    // Idempotent: a repeat answers the same cancelled job.
    const again = await h.api('POST', `/v2/jobs/${jobId}/cancel`, { body: {} });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'cancelled', cancel_reason: 'wrong input' });

    const late = await h.api('POST', `/v2/models/${modelId}/versions/1/jobs/${jobId}/complete`, {
      body: { status: 'success', output: { score: 1 } },
    });
    expect(late.status).toBe(409);
    expect(late.body.message).toContain('cancelled');

    const handle = h.temporal.workflow.getHandle(`job-${jobId}`);
    await eventually(async () => (await handle.describe()).status.name === 'CANCELLED', 20000, 'workflow closed as cancelled');
    expect((await job(jobId)).status).toBe('cancelled');
    expect(await h.knex('model_jobs').where({ source_job_id: jobId })).toEqual([]);
    expect((await h.api('GET', `${base}/service/svc-c`)).body.status).toBe('failed');
    const events = await h
      .knex('webhook_events')
      .where({ ordering_key: `job:${jobId}` })
      .pluck('type');
    expect(events).toEqual(['job.cancelled']);
  });

  it('answers 409 for a job already final, and 404 to a tenant that does not own the job', async () => {
    const modelId = await activeModel(h, { features: FEATURES, handlers: ECHO_HANDLERS });
    await h.api('PUT', `/v2/clients/${tenantA}`, { body: {} });
    const { base } = await tenantWithDomain(h, { features: FEATURES, modelId });
    const done = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: {} } });
    await eventually(async () => (await job(done.body.job_id)).status === 'success', 20000, 'echo job done');
    const refused = await h.api('POST', `/v2/jobs/${done.body.job_id}/cancel`, { body: {} });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('already final: success');

    const init = await initService(h, base, 'svc-x', { seats: 1 });
    const other = await h.api('POST', `/v2/jobs/${init.body.job_id}/cancel`, {
      token: await h.idp.machine(tenantB, ['run_inference']),
      body: {},
    });
    expect(other.status).toBe(404);
    expect((await job(init.body.job_id)).status).not.toBe('cancelled');
  });

  it('stops the ECS task a cancelled job started', async () => {
    const modelId = await activeModel(h, {
      features: FEATURES,
      handlers: {
        training: { type: 'container_task', target: 'ml-cluster/trainer' },
        inference: { type: 'container_task', target: 'ml-cluster/scorer' },
      },
    });
    const infer = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: {} } });
    const jobId = infer.body.job_id;
    await running(jobId);
    await eventually(async () => (await h.knex('model_jobs').where({ job_id: jobId }).first()).ecs_task_arn, 20000, 'task recorded');
    expect((await h.api('POST', `/v2/jobs/${jobId}/cancel`, { body: { reason: 'stop it' } })).status).toBe(200);
    const stop = await eventually(
      async () => ecs.requests.find((r) => r.headers['x-amz-target'] === 'AmazonEC2ContainerServiceV20141113.StopTask'),
      20000,
      'the StopTask call',
    );
    expect(JSON.parse(stop.body)).toEqual({ cluster: 'ml-cluster', task: TASK_ARN, reason: expect.stringContaining('stop it') });
  });

  it('cancels a pending job whose workflow never ran, which is then its own lineage root', async () => {
    const modelId = await activeModel(h, { features: FEATURES, handlers: MANUAL });
    const [row] = await h
      .knex('model_jobs')
      .insert({ job_id: uid('pending-job'), model_id: modelId, model_version: '1', job_type: 'inference', trigger: 'direct' })
      .returning('job_id');
    const res = await h.api('POST', `/v2/jobs/${row.job_id}/cancel`, { body: {} });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('cancelled');
    expect(res.body.root_job_id).toBe(row.job_id);
  });

  it('answers a completion of a running job whose workflow is not on this Temporal with 409 saying so, and cancels it', async () => {
    const modelId = await activeModel(h, { handlers: MANUAL });
    const { body } = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: {} });
    await running(body.job_id);
    // What a switch of TEMPORAL_MODE leaves: the job row running, its workflow on the other server.
    const workflowId = `job-${body.job_id}`;
    await h.temporal.workflowService.deleteWorkflowExecution({ namespace: h.config.temporal.namespace, workflowExecution: { workflowId } });
    await eventually(
      async () =>
        h.temporal.workflow
          .getHandle(workflowId)
          .describe()
          .then(
            () => false,
            () => true,
          ),
      20000,
      'the workflow gone',
    );
    const res = await h.api('POST', `/v2/models/${modelId}/versions/1/jobs/${body.job_id}/complete`, { body: { status: 'success' } });
    expect(res.status).toBe(409);
    expect(res.body.message).toContain(`workflow ${workflowId} does not exist on this Temporal`);
    expect(res.body.message).toContain('TEMPORAL_MODE');
    expect((await h.api('POST', `/v2/jobs/${body.job_id}/cancel`, { body: {} })).status).toBe(200);
    expect((await job(body.job_id)).status).toBe('cancelled');
  }, 60000);
});
