import { LambdaClient } from '@aws-sdk/client-lambda';
import { ECSClient } from '@aws-sdk/client-ecs';
import { Harness, uid } from '../../../helpers/harness';
import { activeModel, tenantWithDomain, initService, eventually } from '../../../helpers/fixtures';
import { AwsStandIn, TEST_AWS } from '../../../helpers/aws-stand-in';

const SIMPLE_FEATURES = [{ name: 'seats', json_schema: { type: 'integer', minimum: 1 }, mandatory: true }];

describe('jobs on Temporal', () => {
  let h: Harness;
  let lambda: AwsStandIn;
  let ecs: AwsStandIn;
  beforeAll(async () => {
    lambda = await AwsStandIn.start((req) =>
      req.url.includes('missing')
        ? {
            status: 404,
            headers: { 'x-amzn-errortype': 'ResourceNotFoundException' },
            body: { Type: 'User', message: 'Function not found' },
          }
        : { status: 202 },
    );
    ecs = await AwsStandIn.start(() => ({
      status: 200,
      body: { tasks: [{ taskArn: 'arn:aws:ecs:eu-west-1:123456789012:task/c/abc' }], failures: [] },
    }));
    h = await Harness.start({
      worker: true,
      lambda: new LambdaClient({ ...TEST_AWS, endpoint: lambda.url }),
      ecs: new ECSClient({ ...TEST_AWS, endpoint: ecs.url }),
    });
  });
  afterAll(async () => {
    await h.stop();
    await lambda.stop();
    await ecs.stop();
  });

  async function serviceStatus(base: string, serviceId: string, status: string) {
    return eventually(
      async () => {
        const res = await h.api('GET', `${base}/service/${serviceId}`);
        return res.body.status === status && res.body;
      },
      20000,
      `service ${serviceId} to become ${status}`,
    );
  }

  async function jobOf(modelId: string, jobId: string, version = '1') {
    return (await h.api('GET', `/v2/models/${modelId}/versions/${version}/jobs/${jobId}`)).body;
  }

  /** A tenant whose service init fires a cascade to a model with `cascadeHandler`; the service's events once the cascade is final. */
  async function initWithCascade(cascadeHandler: 'echo' | 'fail') {
    const source = await activeModel(h, { features: SIMPLE_FEATURES });
    const target = await activeModel(h, {
      features: SIMPLE_FEATURES,
      handlers: { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: cascadeHandler } },
    });
    const sub = await h.api('POST', `/v2/models/${source}/event-subscriptions`, {
      body: { trigger_event: 'inference_complete', target_model_id: target, target_action: 'inference', input_source: 'trigger_output' },
    });
    expect(sub.status).toBe(201);
    const { base, clientId } = await tenantWithDomain(h, { features: SIMPLE_FEATURES, modelId: source });
    const init = await initService(h, base, 'svc-cascade', { seats: 2 });
    await eventually(async () => (await jobOf(source, init.body.job_id)).status === 'success', 20000, 'the init job');
    // The cascade job is created in the transaction that finishes its source.
    const { job_id: cascadeId } = await h.knex('model_jobs').where({ source_job_id: init.body.job_id }).first('job_id');
    await eventually(async () => ['success', 'failure'].includes((await jobOf(target, cascadeId)).status), 20000, 'the cascade job');
    // The events a job's outcome makes commit with it: once the cascade job reads final, its events are in the outbox.
    const events = await h.knex('webhook_events').where({ client_id: clientId }).where('type', 'like', 'service.%').orderBy('event_id');
    return { service: (await h.api('GET', `${base}/service/svc-cascade`)).body, events: events.map((e) => e.type as string) };
  }

  it('announces one service.available for an init whose cascade also succeeds (the cascade does not move the service)', async () => {
    const { service, events } = await initWithCascade('echo');
    expect(service.status).toBe('available');
    expect(events).toEqual(['service.available']);
  });

  it('leaves the service available when its cascade fails', async () => {
    const { service, events } = await initWithCascade('fail');
    expect(service.status).toBe('available');
    expect(events).toEqual(['service.available']);
  });

  it('runs init → in-process dispatch → completion → service available', async () => {
    const modelId = await activeModel(h, { features: SIMPLE_FEATURES });
    const { base, clientId } = await tenantWithDomain(h, { features: SIMPLE_FEATURES, modelId });
    const init = await initService(h, base, 'svc-1', { seats: 3 });
    expect(init.status).toBe(202);
    expect(init.body).toEqual({
      service_id: 'svc-1',
      job_id: expect.any(String),
      job_url: expect.stringContaining(`job-${init.body.job_id}`),
    });
    await serviceStatus(base, 'svc-1', 'available');
    const job = await jobOf(modelId, init.body.job_id);
    expect(job).toMatchObject({
      status: 'success',
      job_type: 'inference',
      trigger: 'service_init',
      client_id: clientId,
      service_id: 'svc-1',
    });
    expect(job.output).toMatchObject({ service_id: 'svc-1', features: { seats: 3 } });
  });

  it('moves the service to failed when the handler fails', async () => {
    const modelId = await activeModel(h, {
      features: SIMPLE_FEATURES,
      handlers: { training: { type: 'in_process', name: 'fail' }, inference: { type: 'in_process', name: 'fail' } },
    });
    const { base } = await tenantWithDomain(h, { features: SIMPLE_FEATURES, modelId });
    const init = await initService(h, base, 'svc-f', { seats: 1 });
    await serviceStatus(base, 'svc-f', 'failed');
    const job = await jobOf(modelId, init.body.job_id);
    expect(job.status).toBe('failure');
    expect(job.error).toEqual({ message: 'the fail implementation always fails' });
  });

  it('invokes a Lambda handler asynchronously and completes through the completion route', async () => {
    const fn = `arn:aws:lambda:eu-west-1:123456789012:function:${uid('fn')}`;
    const modelId = await activeModel(h, {
      features: SIMPLE_FEATURES,
      handlers: { training: { type: 'lambda', arn: fn }, inference: { type: 'lambda', arn: fn, version: 'live' } },
    });
    const { base } = await tenantWithDomain(h, { features: SIMPLE_FEATURES, modelId });
    const init = await initService(h, base, 'svc-l', { seats: 2 });
    const jobId = init.body.job_id;
    const request = await eventually(async () => lambda.requests.find((r) => r.body.includes(jobId)), 20000, 'the Lambda invoke');
    expect(request.method).toBe('POST');
    expect(decodeURIComponent(request.url)).toBe(`/2015-03-31/functions/${fn}/invocations?Qualifier=live`);
    expect(request.headers['x-amz-invocation-type']).toBe('Event');
    const payload = JSON.parse(request.body);
    expect(payload).toMatchObject({
      job_id: jobId,
      job_type: 'inference',
      model_id: modelId,
      model_version: '1',
      input: { features: { seats: 2 } },
    });
    expect(payload.completion.path).toBe(`/v2/models/${modelId}/versions/1/jobs/${jobId}/complete`);
    await eventually(async () => (await jobOf(modelId, jobId)).status === 'running', 10000, 'job running');

    const done = await h.api('POST', payload.completion.path, { body: { status: 'success', output: { score: 0.9 } } });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ job_id: jobId, model_id: modelId, model_version: '1', status: 'success', triggered_events: [] });
    await serviceStatus(base, 'svc-l', 'available');
    expect((await jobOf(modelId, jobId)).output).toEqual({ score: 0.9 });
  });

  it('fails the job at once when Lambda refuses the invoke', async () => {
    const fn = `missing-${uid('fn')}`;
    const modelId = await activeModel(h, {
      features: SIMPLE_FEATURES,
      handlers: { training: { type: 'lambda', arn: fn }, inference: { type: 'lambda', arn: fn } },
    });
    const { base } = await tenantWithDomain(h, { features: SIMPLE_FEATURES, modelId });
    const init = await initService(h, base, 'svc-m', { seats: 2 });
    await serviceStatus(base, 'svc-m', 'failed');
    const job = await jobOf(modelId, init.body.job_id);
    expect(job.status).toBe('failure');
    expect(job.error.message).toContain('ResourceNotFoundException');
    expect(lambda.requests.filter((r) => r.url.includes(fn))).toHaveLength(1);
  });

  it('runs a container task on ECS with the job in the container environment', async () => {
    const modelId = await activeModel(h, {
      features: SIMPLE_FEATURES,
      handlers: {
        training: { type: 'container_task', target: 'ml-cluster/trainer:3' },
        inference: { type: 'container_task', target: 'ml-cluster/scorer', launch: { launch_type: 'FARGATE', subnets: ['subnet-1'] } },
      },
    });
    const { base } = await tenantWithDomain(h, { features: SIMPLE_FEATURES, modelId });
    const init = await initService(h, base, 'svc-e', { seats: 4 });
    const request = await eventually(async () => ecs.requests.find((r) => r.body.includes(init.body.job_id)), 20000, 'the RunTask call');
    expect(request.headers['x-amz-target']).toBe('AmazonEC2ContainerServiceV20141113.RunTask');
    const body = JSON.parse(request.body);
    expect(body).toMatchObject({
      cluster: 'ml-cluster',
      taskDefinition: 'scorer',
      clientToken: init.body.job_id,
      launchType: 'FARGATE',
      networkConfiguration: { awsvpcConfiguration: { subnets: ['subnet-1'] } },
    });
    const env = body.overrides.containerOverrides[0];
    expect(env.name).toBe('scorer');
    const job = JSON.parse(env.environment.find((e: any) => e.name === 'MOS_JOB').value);
    expect(job).toMatchObject({ job_id: init.body.job_id, model_id: modelId });
    // The task's job token (also in MOS_JOB) completes its job without an identity-provider token.
    const token = env.environment.find((e: any) => e.name === 'MOS_JOB_TOKEN').value;
    expect(job.completion.token).toBe(token);
    expect((await h.api('POST', job.completion.path, { token, body: { status: 'success' } })).status).toBe(200);
  });

  it('answers a repeated completion with the first answer and a conflicting one with 409', async () => {
    const fn = uid('fn');
    const modelId = await activeModel(h, {
      features: SIMPLE_FEATURES,
      handlers: { training: { type: 'lambda', arn: fn }, inference: { type: 'lambda', arn: fn } },
    });
    const infer = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: { x: 1 } } });
    expect(infer.status).toBe(202);
    const path = `/v2/models/${modelId}/versions/1/jobs/${infer.body.job_id}/complete`;
    await eventually(async () => (await jobOf(modelId, infer.body.job_id)).status === 'running', 10000, 'job running');
    const first = await h.api('POST', path, { body: { status: 'failure', error: { reason: 'oom' } } });
    expect(first.status).toBe(200);
    expect(first.body.triggered_events).toEqual([]);
    const again = await h.api('POST', path, { body: { status: 'failure', error: { reason: 'oom' } } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const conflicting = await h.api('POST', path, { body: { status: 'success' } });
    expect(conflicting.status).toBe(409);
    expect(conflicting.body.success).toBe(false);
    expect((await jobOf(modelId, infer.body.job_id)).error).toEqual({ reason: 'oom' });
  });

  it('answers concurrent repeats of a completion alike, from the workflow or from the record, and fires its cascade once', async () => {
    const fn = uid('fn');
    const source = await activeModel(h, { handlers: { training: { type: 'lambda', arn: fn }, inference: { type: 'lambda', arn: fn } } });
    const target = await activeModel(h);
    const sub = await h.api('POST', `/v2/models/${source}/event-subscriptions`, {
      body: { trigger_event: 'inference_complete', target_model_id: target, target_action: 'inference', input_source: 'trigger_output' },
    });
    expect(sub.status).toBe(201);
    const infer = await h.api('POST', `/v2/models/${source}/versions/1/infer`, { body: { input: { x: 1 } } });
    const path = `/v2/models/${source}/versions/1/jobs/${infer.body.job_id}/complete`;
    await eventually(async () => (await jobOf(source, infer.body.job_id)).status === 'running', 10000, 'job running');
    const report = { status: 'success', output: { score: 3 } };
    const answers = await Promise.all(Array.from({ length: 4 }, () => h.api('POST', path, { body: report })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    for (const a of answers) expect(a.body).toEqual(answers[0].body);
    expect(answers[0].body.triggered_events).toEqual([{ subscription_id: sub.body.subscription_id, job_id: expect.any(String) }]);
    // Read at once: the cascade job is committed with the answer.
    const cascade = await h.api('GET', `/v2/jobs/${answers[0].body.triggered_events[0].job_id}`);
    expect(cascade.status).toBe(200);
    expect(cascade.body).toMatchObject({ trigger: 'cascade', source_job_id: infer.body.job_id, input: { score: 3 } });
    const conflicting = await h.api('POST', path, { body: { status: 'failure' } });
    expect(conflicting.status).toBe(409);
    expect(await h.knex('model_jobs').where({ source_job_id: infer.body.job_id }).count({ n: '*' })).toEqual([{ n: 1 }]);
  });

  it('fires subscriptions on completion: 207 with one job and one error when a stored input no longer fits', async () => {
    const fn = uid('fn');
    const source = await activeModel(h, { handlers: { training: { type: 'lambda', arn: fn }, inference: { type: 'lambda', arn: fn } } });
    const contract = {
      inference: { input_schema: { type: 'object', required: ['threshold'], properties: { threshold: { type: 'number' } } } },
    };
    const good = await activeModel(h, { handler_contracts: contract });
    const drifting = await activeModel(h, { handler_contracts: contract });
    const subGood = await h.api('POST', `/v2/models/${source}/event-subscriptions`, {
      body: {
        trigger_event: 'inference_complete',
        target_model_id: good,
        target_action: 'inference',
        input_source: 'stored',
        input: { threshold: 0.5 },
        label: 'good',
      },
    });
    expect(subGood.status).toBe(201);
    const subBad = await h.api('POST', `/v2/models/${source}/event-subscriptions`, {
      body: {
        trigger_event: 'inference_complete',
        target_model_id: drifting,
        target_action: 'inference',
        input_source: 'stored',
        input: { threshold: 0.7 },
        label: 'drifting',
      },
    });
    expect(subBad.status).toBe(201);
    // The target's contract changes under the stored input; the subscription is re-activated without re-checking by SQL to simulate drift at fire time.
    await h
      .knex('models')
      .where({ id: drifting })
      .update({
        handler_contracts: JSON.stringify({
          inference: { input_schema: { type: 'object', required: ['threshold'], properties: { threshold: { type: 'string' } } } },
        }),
      });

    const infer = await h.api('POST', `/v2/models/${source}/versions/1/infer`, { body: { input: {} } });
    await eventually(async () => (await jobOf(source, infer.body.job_id)).status === 'running', 10000, 'job running');
    const done = await h.api('POST', `/v2/models/${source}/versions/1/jobs/${infer.body.job_id}/complete`, {
      body: { status: 'success', output: { path: 's3://bucket/out' } },
    });
    expect(done.status).toBe(207);
    const events = done.body.triggered_events;
    expect(events).toHaveLength(2);
    const ok = events.find((e: any) => e.subscription_id === subGood.body.subscription_id);
    const failed = events.find((e: any) => e.subscription_id === subBad.body.subscription_id);
    expect(ok).toEqual({ subscription_id: subGood.body.subscription_id, job_id: expect.any(String) });
    expect(failed).toEqual({ subscription_id: subBad.body.subscription_id, error: expect.stringContaining('input_schema') });

    const cascade = await eventually(
      async () => {
        const job = await jobOf(good, ok.job_id);
        return job.status === 'success' && job;
      },
      20000,
      'the cascade job',
    );
    expect(cascade).toMatchObject({
      trigger: 'cascade',
      source_job_id: infer.body.job_id,
      input: { threshold: 0.5 },
      metadata: { trigger_output: { path: 's3://bucket/out' } },
    });
  });

  it('keeps a waiting job alive across a worker restart', async () => {
    const fn = uid('fn');
    const modelId = await activeModel(h, {
      features: SIMPLE_FEATURES,
      handlers: { training: { type: 'lambda', arn: fn }, inference: { type: 'lambda', arn: fn } },
    });
    const { base } = await tenantWithDomain(h, { features: SIMPLE_FEATURES, modelId });
    const init = await initService(h, base, 'svc-r', { seats: 5 });
    await eventually(async () => (await jobOf(modelId, init.body.job_id)).status === 'running', 10000, 'job running');
    await h.stopWorker();
    const complete = () =>
      h.api('POST', `/v2/models/${modelId}/versions/1/jobs/${init.body.job_id}/complete`, { body: { status: 'success', output: {} } });
    const pending = complete();
    // The report has reached Temporal once it schedules a workflow task to deliver it (no worker takes it yet).
    const handle = h.temporal.workflow.getHandle(`job-${init.body.job_id}`);
    await eventually(async () => Boolean((await handle.describe()).raw.pendingWorkflowTask), 10000, 'the report to reach the workflow');
    await h.startWorker();
    // The route waits a bounded time (COMPLETION_WAIT_SECONDS): a caller that got 503 repeats the same report.
    const first = await pending;
    expect([200, 503]).toContain(first.status);
    const done =
      first.status === 200
        ? first
        : await eventually(
            async () => {
              const again = await complete();
              expect([200, 503]).toContain(again.status);
              return again.status === 200 && again;
            },
            60000,
            'the completion after the restart',
          );
    expect(done.body.status).toBe('success');
    await serviceStatus(base, 'svc-r', 'available');
  }, 90000);

  it('makes every job findable in Temporal by its search attributes', async () => {
    const modelId = await activeModel(h, { features: SIMPLE_FEATURES });
    const { base, clientId, domainId } = await tenantWithDomain(h, { features: SIMPLE_FEATURES, modelId });
    const init = await initService(h, base, 'svc-s', { seats: 1 });
    await serviceStatus(base, 'svc-s', 'available');
    const found = await eventually(
      async () => {
        const list = [];
        for await (const wf of h.temporal.workflow.list({
          query: `WorkflowId = "job-${init.body.job_id}" AND ModelId = "${modelId}" AND ClientId = "${clientId}"`,
        }))
          list.push(wf);
        return list.length === 1 && list[0];
      },
      15000,
      'the workflow in visibility',
    );
    expect(found.workflowId).toBe(`job-${init.body.job_id}`);
    const description = await h.temporal.workflow.getHandle(found.workflowId).describe();
    const attrs = description.searchAttributes as Record<string, unknown[]>;
    expect(attrs.DomainId).toEqual([domainId]);
    expect(attrs.ServiceId).toEqual(['svc-s']);
    expect(attrs.JobType).toEqual(['inference']);
    await eventually(
      async () => {
        const d = await h.temporal.workflow.getHandle(found.workflowId).describe();
        return (d.searchAttributes as any).JobStatus?.[0] === 'success';
      },
      10000,
      'JobStatus success',
    );
  });
});
